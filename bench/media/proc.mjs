// Process-tree memory readings (Linux /proc): the workerd process under a `wrangler dev`.
import { execSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

function children(pid) {
  const out = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {}
  }
  return out;
}

/**
 * Every workerd process started (directly or not) by `rootPid`. `wrangler dev` runs two: a small proxy and the
 * runtime that hosts the Worker, so readings are taken on all and the largest growth is reported.
 */
export function findWorkerds(rootPid) {
  const found = [];
  const queue = [rootPid];
  while (queue.length) {
    const pid = queue.shift();
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd") found.push(pid);
    } catch {}
    queue.push(...children(pid));
  }
  return found;
}

/** Idle readings now; call the returned function later for the largest peak growth (MB) across the processes. */
export function watchMemory(pids) {
  const idle = new Map(pids.map((pid) => [pid, memory(pid)]));
  return () => {
    let best = { growthMb: 0, idleMb: 0, peakMb: 0 };
    for (const [pid, before] of idle) {
      const after = memory(pid);
      const growthMb = (after.hwmKb - before.rssKb) / 1024;
      if (growthMb >= best.growthMb) best = { growthMb, idleMb: before.rssKb / 1024, peakMb: after.hwmKb / 1024 };
    }
    return best;
  };
}

/** {rssKb, hwmKb} of a process. */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssKb: kb("VmRSS"), hwmKb: kb("VmHWM") };
}

/** `nproc`, `uname -m` and the Node version, as the results record them. */
export function hostLine() {
  const sh = (cmd) => {
    try {
      return execSync(cmd, { encoding: "utf8" }).trim();
    } catch {
      return "?";
    }
  };
  return `\`nproc\` ${sh("nproc")} · \`uname -m\` ${sh("uname -m")} · node ${process.version}`;
}
