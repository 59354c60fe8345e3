// `legion doctor`'s checks of the machine: Node's version, the process's containment, the sandbox.
import type { SandboxNetwork } from '@legion-collective/core';
import { containment, CONTAINMENT_VARIABLE, describeConfinement, sandboxSupport } from '@legion-collective/core/management';
import type { DoctorCheck } from './doctor-report.js';

const MINIMUM_NODE: readonly [number, number] = [20, 19];

export function nodeCheck(): DoctorCheck {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
  const needed = `${MINIMUM_NODE[0]}.${MINIMUM_NODE[1]}`;
  return ok
    ? { name: 'Node.js', category: 'node', status: 'passed', detail: `${process.versions.node} (${needed} or later needed)` }
    : {
        name: 'Node.js',
        category: 'node',
        status: 'failed',
        error: `Node.js ${process.versions.node} is too old`,
        fix: `install Node.js ${needed} or later`,
      };
}

/** How the commands agents run are kept from outliving them and Legion (core's `containment()`). */
export function containmentCheck(): DoctorCheck {
  const used = containment();
  const check: DoctorCheck = { name: 'command containment', category: 'tools', status: 'passed', detail: `${used.kind}: ${used.reason}` };
  if (used.kind === 'pid-namespace') return check;
  const forced = used.reason.startsWith(CONTAINMENT_VARIABLE);
  const install = forced
    ? `; unset ${CONTAINMENT_VARIABLE} for a PID namespace per command`
    : process.platform === 'linux'
      ? '; install bubblewrap (bwrap) with user namespaces enabled for a PID namespace per command'
      : '';
  return { ...check, warning: `a process a command starts can escape it and outlive Legion${install}` };
}

/**
 * Whether the commands agents write run in the OS sandbox here, as the config asks: bubblewrap is
 * tried for real (`true` run inside the sandbox's profile), so a machine whose user namespaces are
 * off says so. `required` where it cannot work fails: no command would run.
 */
export function sandboxCheck(mode: 'on' | 'off' | 'required', network: SandboxNetwork): DoctorCheck {
  const name = 'command sandbox';
  if (mode === 'off')
    return {
      name,
      category: 'tools',
      status: 'passed',
      detail: '"sandbox" is "off" in the config: commands run unsandboxed',
      warning:
        'a command an agent writes may write anywhere you may, read your keys and reach the network; set "sandbox": "on" to confine them',
    };
  const support = sandboxSupport();
  if (support.works) return { name, category: 'tools', status: 'passed', detail: `bubblewrap, "${mode}": ${describeConfinement(network)}` };
  if (mode === 'required')
    return {
      name,
      category: 'tools',
      status: 'failed',
      error: `"sandbox" is "required", and ${support.reason}: no command an agent writes will run`,
      fix: support.fix,
    };
  return {
    name,
    category: 'tools',
    status: 'passed',
    detail: `"sandbox" is "on", but ${support.reason}: commands run unsandboxed`,
    warning: `to sandbox them: ${support.fix}`,
  };
}
