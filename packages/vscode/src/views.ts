import type { Legion } from '@legion-collective/core';
import * as vscode from 'vscode';
import type { ChatUserSurface } from './chat-surface.js';
import type { LegionHost } from './legion-host.js';
import { visibleRow } from './ui-text.js';

type Row = {
  label: string;
  description?: string | undefined;
  tooltip?: string | undefined;
  icon: string;
  contextValue?: string | undefined;
  command?: vscode.Command | undefined;
};

/** A flat tree of rows, recomputed whenever it is told that something changed. */
class RowsView implements vscode.TreeDataProvider<Row> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly rows: () => Promise<Row[]> | Row[]) {}

  refresh(): void {
    this.changed.fire();
  }

  getTreeItem(shown: Row): vscode.TreeItem {
    // Labels, descriptions and tooltips come from models and files (a question, a description, a title): all made visible here.
    const row = visibleRow(shown);
    const item = new vscode.TreeItem(row.label);
    item.description = row.description;
    item.tooltip = row.tooltip;
    item.iconPath = new vscode.ThemeIcon(row.icon);
    item.contextValue = row.contextValue;
    item.command = row.command;
    return item;
  }

  async getChildren(parent?: Row): Promise<Row[]> {
    if (parent) return [];
    try {
      return await this.rows();
    } catch (error) {
      // A workspace Legion cannot open (a broken config, an unreachable database) says why, with the fix.
      return [
        {
          label: 'Legion could not open',
          description: error instanceof Error ? error.message : String(error),
          tooltip: error instanceof Error ? error.message : String(error),
          icon: 'error',
        },
      ];
    }
  }
}

/** The activity-bar "Legion" views: the collective, the sessions and the approvals waiting on you. */
export function registerViews(host: LegionHost, surface: ChatUserSurface): vscode.Disposable[] {
  const legion = async (): Promise<Legion | undefined> => (host.hasWorkspace() ? host.start() : undefined);
  const collective = new RowsView(async () => {
    const opened = await legion();
    if (!opened)
      return [
        {
          label: 'No .legion/ here',
          description: 'run Legion: Initialize Workspace',
          icon: 'info',
          command: { command: 'legion.initializeWorkspace', title: 'Initialize' },
        },
      ];
    const entry = opened.entryAgentId();
    return opened.collective.list().map((member) => ({
      label: member.id,
      description:
        member.type === 'agent'
          ? `${member.model?.provider ?? '?'} / ${member.model?.model ?? '?'}${member.id === entry ? ' · entry' : ''}`
          : member.type,
      tooltip: member.description,
      icon: member.type === 'user' ? 'person' : member.type === 'agent' ? 'hubot' : 'beaker',
    }));
  });
  const sessions = new RowsView(async () => {
    const opened = await legion();
    if (!opened) return [];
    return (await opened.sessions.list()).map((meta) => ({
      label: meta.title ?? meta.id,
      description: meta.lastActiveAt,
      tooltip: meta.id,
      icon: 'history',
    }));
  });
  const approvals = new RowsView(() =>
    surface.items().map((item) =>
      item.kind === 'approval'
        ? {
            label: `${item.request.requester}: ${item.request.tool}`,
            description: item.request.reason,
            icon: 'shield',
            contextValue: 'approval',
            command: { command: 'legion.approval.decide', title: 'Decide', arguments: [item.id] },
          }
        : {
            label: `${item.question.from} asks`,
            description: item.question.text,
            icon: 'question',
            contextValue: 'question',
            command: { command: 'legion.question.answer', title: 'Answer', arguments: [item.id] },
          },
    ),
  );
  const refreshAll = (): void => {
    collective.refresh();
    sessions.refresh();
    approvals.refresh();
  };
  const subscriptions: vscode.Disposable[] = [
    vscode.window.registerTreeDataProvider('legion.collective', collective),
    vscode.window.registerTreeDataProvider('legion.sessions', sessions),
    vscode.window.registerTreeDataProvider('legion.approvals', approvals),
    surface.onDidChange(() => approvals.refresh()),
    vscode.commands.registerCommand('legion.refresh', refreshAll),
    host.onDidOpen((opened) => {
      refreshAll();
      const off = opened.events.on('session:created', () => sessions.refresh());
      subscriptions.push(new vscode.Disposable(off));
    }),
  ];
  return subscriptions;
}
