#!/usr/bin/env bash
# Cold `agentctl agents list`: median wall time and peak RSS over fresh processes.
#
# Generates two project trees in a temporary folder — 1,000 native agent files, and 545
# Claude Code agent files shaped like the public collections (long prompts, `tools: Read,
# Grep`, `model: sonnet`, a few `color`s, grouped in folders with a README each) — builds the
# release binary, then runs `agentctl agents list` over each tree RUNS times (default 7) after
# one warm-up run, each in a new process, and prints the median and spread of the wall time
# and the peak RSS (the kernel's maxrss of each child, read by GNU time: a child of Python
# would report Python's own RSS, which the kernel counts in until the child's `exec`).
#
# "Cold" is the process: nothing of agentctl is cached between runs; the files themselves are
# in the page cache after the warm-up (dropping it needs root and measures the disk).
#
#   benches/cli_cold.sh                       # build, generate, measure
#   RUNS=15 benches/cli_cold.sh               # more runs
#   CLAUDE_AGENTS=~/src/agents benches/cli_cold.sh   # also list a real folder of Claude agents
#   AGENTCTL=target/release/agentctl NO_BUILD=1 benches/cli_cold.sh
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${RUNS:-7}"
bin="${AGENTCTL:-$root/target/release/agentctl}"
if [[ -z "${NO_BUILD:-}" ]]; then
    (cd "$root" && cargo build --release --quiet --bin agentctl)
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$bin" "$work" "$runs" "${CLAUDE_AGENTS:-}" <<'PY'
import os, random, statistics, subprocess, sys, time

binary, work, runs, real_claude = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rng = random.Random(16)

WORDS = ("review code test deploy database migration latency refactor security docs release "
         "flaky login cache schema upgrade rollback benchmark memory api frontend backend css "
         "kubernetes docker terraform billing search index queue email auth oauth logging "
         "metrics error crash performance accessibility design architecture pipeline").split()

def sentence(n):
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."

def prompt(target_bytes):
    """Markdown like a published agent: headings, numbered steps, checklists, prose."""
    out, size, section = [], 0, 0
    while size < target_bytes:
        section += 1
        block = [f"## {sentence(3)[:-1]}", ""]
        kind = section % 3
        if kind == 0:
            block += [f"{i}. {sentence(rng.randint(6, 14))}" for i in range(1, rng.randint(4, 9))]
        elif kind == 1:
            block += [f"- {sentence(rng.randint(3, 8))}" for _ in range(rng.randint(5, 12))]
        else:
            block += [" ".join(sentence(rng.randint(8, 20)) for _ in range(rng.randint(3, 6)))]
        block.append("")
        text = "\n".join(block) + "\n"
        out.append(text)
        size += len(text)
    return "".join(out)

def native(i):
    tools = rng.sample(["read_file", "grep", "glob", "bash", "write_file", "edit_file", "web_fetch"], 4)
    kw = rng.sample(WORDS, 3)
    handoff = f"handoffs:\n  - to: agent-{(i + 1) % 1000:04d}\n    when: task.status == 'review-{i}'\n" if i % 4 == 0 else ""
    return (
        f"---\nname: agent-{i:04d}\ntitle: Agent {i}\n"
        f"description: {sentence(rng.randint(10, 25))}\n"
        f"model: {rng.choice(['sonnet', 'haiku', 'openai:gpt-4.1', 'anthropic:claude-sonnet-4-5'])}\n"
        f"tools:\n  allow: [{', '.join(tools)}]\n  deny: [delete_file]\n"
        f"maxTurns: {rng.randint(5, 30)}\ncontextMode: {rng.choice(['isolated', 'shared'])}\n"
        f"triggers:\n  - keywords: [{', '.join(kw)}]\n    regex: ['agent {i}\\b']\n    priority: {i % 10}\n"
        f"{handoff}---\n\n{prompt(rng.randint(1500, 6000))}"
    )

def claude(i):
    name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i:03d}"
    lines = [f"name: {name}"]
    if i % 5 == 0:
        # Long quoted descriptions with examples, as some collections write them.
        examples = "\\n\\n".join(
            f"<example>\\nContext: {sentence(8)}\\nuser: \\\"{sentence(10)}\\\"\\nassistant: "
            f"\\\"I'll use the {name} agent.\\\"\\n</example>" for _ in range(3))
        lines.append(f"description: \"Use this agent when {sentence(12)} Examples:\\n\\n{examples}\"")
    else:
        lines.append(f"description: {sentence(rng.randint(15, 40))} Use PROACTIVELY for {rng.choice(WORDS)}.")
    if i % 3 == 0:
        lines.append("tools: " + ", ".join(rng.sample(["Read", "Write", "Edit", "Bash", "Glob", "Grep", "WebFetch"], 3)))
    if i % 5 != 4:
        lines.append("model: " + rng.choice(["sonnet", "sonnet", "opus", "haiku", "inherit"]))
    if i % 9 == 0:
        lines.append("color: " + rng.choice(["blue", "green", "red", "purple"]))
    size = int(min(max(rng.lognormvariate(8.6, 0.6), 700), 20000))
    return "---\n" + "\n".join(lines) + f"\n---\n\n{prompt(size)}"

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)

home = os.path.join(work, "home")
os.makedirs(os.path.join(home, ".agentctl"))
native_project = os.path.join(work, "native")
for i in range(1000):
    write(f"{native_project}/.agentctl/agents/agent-{i:04d}.md", native(i))
claude_project = os.path.join(work, "claude")
groups = ["core-development", "language-specialists", "infrastructure", "quality-security",
          "data-ai", "developer-experience", "business", "orchestration"]
for group in groups:
    write(f"{claude_project}/.claude/agents/{group}/README.md", f"# {group}\n\n{prompt(1500)}")
for i in range(545):
    write(f"{claude_project}/.claude/agents/{groups[i % len(groups)]}/agent-{i:03d}.md", claude(i))

trees = [("1,000 native files", native_project), ("545 Claude Code files", claude_project)]
if real_claude:
    real_project = os.path.join(work, "real")
    os.makedirs(os.path.join(real_project, ".claude"))
    os.symlink(os.path.abspath(real_claude), os.path.join(real_project, ".claude", "agents"))
    trees.append((os.path.basename(os.path.abspath(real_claude)) or real_claude, real_project))

env = dict(os.environ, HOME=home, AGENTCTL_HOME=os.path.join(home, ".agentctl"))
env.pop("AGENTCTL_LOG", None)

# The peak RSS of a process counts the memory of the process it was forked from until it
# calls `exec` (the kernel keeps the larger "high water mark"): a child of this Python
# process reports at least Python's RSS (about 14 MiB). GNU time is a small C program, so
# its child's maxrss is agentctl's own. Wall and CPU are measured without it.
GNU_TIME = "/usr/bin/time"

def once(project, stderr=subprocess.DEVNULL):
    start = time.perf_counter()
    proc = subprocess.Popen([binary, "--project-dir", project, "agents", "list"],
                            stdout=subprocess.DEVNULL, stderr=stderr, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"agents list failed in {project}")
    cpu = (usage.ru_utime + usage.ru_stime) * 1000
    return wall, cpu  # ms, ms

def peak_rss(project):
    """agentctl's own peak RSS in MiB, or None without GNU time."""
    if not os.access(GNU_TIME, os.X_OK):
        return None
    out = subprocess.run([GNU_TIME, "-f", "%M", binary, "--project-dir", project, "agents", "list"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    return int(out.stderr.strip().splitlines()[-1]) / 1024  # KiB → MiB

print(f"agentctl agents list, {runs} runs after a warm-up, on {os.cpu_count()} CPUs, "
      f"load average {os.getloadavg()[0]:.1f}")
print(f"{'tree':<24} {'wall median':>12} {'(min–max)':>16} {'CPU median':>11} {'peak RSS median':>16} {'(max)':>9}")
for label, project in trees:
    # The warm-up run also checks the tree lists cleanly: a warning per file would be measured too.
    with open(os.path.join(work, "stderr"), "w+") as err:
        once(project, err)
        err.seek(0)
        warnings = sum(1 for _ in err)
    if warnings:
        print(f"  ({label}: {warnings} warning line(s) on stderr, measured too)")
    samples = [once(project) for _ in range(runs)]
    walls = [w for w, _ in samples]
    cpu = [c for _, c in samples]
    rss = [peak_rss(project) for _ in range(runs)]
    memory = (f" {statistics.median(rss):>12.1f} MiB {max(rss):>5.1f} MiB" if None not in rss
              else f" {'(no ' + GNU_TIME + ')':>22}")
    print(f"{label:<24} {statistics.median(walls):>9.1f} ms {min(walls):>7.1f}–{max(walls):.1f} ms"
          f" {statistics.median(cpu):>8.1f} ms" + memory)
PY
