import { join } from 'node:path';
import type { Legion } from '@legion-collective/core';
import { startServer, type RunningServer } from '@legion-collective/server';
import * as vscode from 'vscode';

/**
 * The web UI's conversation graph in a webview: packages/server's `startServer` (what `legion
 * serve` runs) over this extension host's Legion on 127.0.0.1, serving the browser app's build
 * that ships in dist/web. The webview frames that app; nothing of it is reimplemented here.
 */
export class GraphPanel implements vscode.Disposable {
  private server: Promise<RunningServer> | undefined;
  private panel: vscode.WebviewPanel | undefined;

  constructor(
    private readonly extensionPath: string,
    private readonly legion: () => Legion,
  ) {}

  async show(): Promise<void> {
    const server = await (this.server ??= startServer({
      legion: this.legion(),
      host: '127.0.0.1',
      staticDir: join(this.extensionPath, 'dist', 'web'),
      // The webview is another origin framing the app (the editor's, or vscode-webview: on the desktop).
      frameAncestors: ['http://127.0.0.1:*', 'http://localhost:*', 'vscode-webview:', 'https://*.vscode-cdn.net'],
    }));
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    this.panel = vscode.window.createWebviewPanel('legion.graph', 'Legion: Conversation Graph', vscode.ViewColumn.Active, {
      enableScripts: true,
      retainContextWhenHidden: true,
    });
    this.panel.onDidDispose(() => (this.panel = undefined));
    const origin = `http://127.0.0.1:${server.port}`;
    this.panel.webview.html = `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; frame-src ${origin}; style-src 'unsafe-inline'">
<style>html,body,iframe{margin:0;padding:0;border:0;width:100%;height:100%;overflow:hidden}</style></head>
<body><iframe id="legion-app" title="Legion" src="${origin}/?token=${encodeURIComponent(server.token)}"></iframe></body></html>`;
  }

  async dispose(): Promise<void> {
    this.panel?.dispose();
    const server = await this.server?.catch(() => undefined);
    await server?.close();
  }
}
