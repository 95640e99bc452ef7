// Process-tree memory readings (Linux /proc): the workerd process under a `wrangler dev`.
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

/** The workerd process started (directly or not) by `rootPid`. */
export function findWorkerd(rootPid) {
  const queue = [rootPid];
  while (queue.length) {
    const pid = queue.shift();
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd") return pid;
    } catch {}
    queue.push(...children(pid));
  }
  return null;
}

/** {rssKb, hwmKb} of a process. */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssKb: kb("VmRSS"), hwmKb: kb("VmHWM") };
}
