#!/usr/bin/env python3
"""Source figures of the workspace, for benches/workspace.sh (Python 3 standard library only).

    benches/workspace.py circles|functions|tests|wire ROOT

Each subcommand prints tab-separated rows that workspace.sh turns into Markdown:

- circles: `crate<TAB>module, module, ...` per module circle: a strongly connected component of
  more than one module in the graph of a crate's `crate::`/`super::`/`self::`/child-module paths
  (use statements and paths in code, test modules left out; a name a module re-exports with
  `pub use` is followed to the module that defines it).
- functions: `crate<TAB>lines<TAB>file:line fn name<TAB>kept` per non-test function (test modules
  inline or in files of their own left out) whose body spans more than 80 lines (from the `fn` line to its closing brace); `kept` is `yes` when a
  comment starting `Kept whole:` is among the lines just above it (the reason it is one function).
- tests: `crate<TAB>count` of `#[test]` and `#[tokio::test]` functions (src, tests, benches).
- wire: `file<TAB>test<TAB>wire|shortcut` per end-to-end test (CLI tests and the session crate's
  integration tests) that runs a model; see `wire_kind` for the heuristic.
- devcycles: `crate<TAB>dev-dependency` per dev-dependency cycle: a workspace crate whose
  dev-dependency depends on it again through normal dependencies (its unit tests would see two
  copies of its types). Reads `cargo metadata --format-version 1` from stdin; ROOT is unused.
"""

import os
import re
import sys
from pathlib import Path

LONG = 80


def strip(text):
    """The text with comments, strings and char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not is_ident(text, i - 1):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""' + blank(text[i + 2:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append('"' + blank(text[i + 1:j - 1]) + '"')
            i = j
        elif c == "'":
            m = re.match(r"'(\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def is_ident(text, i):
    return i >= 0 and (text[i].isalnum() or text[i] == "_")


def blank(s):
    return "".join("\n" if ch == "\n" else " " for ch in s)


def matching_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


TEST_ATTR = re.compile(r"#\[\s*cfg\s*\(\s*test\s*\)\s*\]")


def drop_test_modules(code):
    """Blanks `#[cfg(test)] mod x { ... }` blocks and `#[cfg(test)]` items (keeping newlines)."""
    while True:
        m = TEST_ATTR.search(code)
        if not m:
            return code
        brace = code.find("{", m.end())
        semi = code.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            end = semi if semi >= 0 else len(code) - 1
        else:
            end = matching_brace(code, brace)
        code = code[:m.start()] + blank(code[m.start():end + 1]) + code[end + 1:]


def crates(root):
    """(crate name, source dir) of every workspace crate, the umbrella crate as `agentctl`."""
    found = [("agentctl", root / "src")]
    for d in sorted((root / "crates").iterdir()):
        if (d / "src").is_dir():
            found.append(("agentctl-" + d.name, d / "src"))
    return found


def package_dirs(root):
    """(crate name, package dir, extra dirs) for tests: the umbrella's are root src/tests/benches."""
    found = [("agentctl", root, ["src", "tests", "benches", "examples"])]
    for d in sorted((root / "crates").iterdir()):
        if (d / "src").is_dir():
            found.append(("agentctl-" + d.name, d, ["src", "tests", "benches", "examples"]))
    return found


def rust_files(directory):
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = [d for d in dirnames if d not in ("node_modules", "target")]
        for f in sorted(filenames):
            if f.endswith(".rs"):
                yield Path(dirpath) / f


# ---------------------------------------------------------------- module graph

MOD_DECL = re.compile(r"(#\[[^\]]*\]\s*)*(pub(\([^)]*\))?\s+)?mod\s+(\w+)\s*(;|\{)")


def module_tree(src):
    """{module path (tuple): (file, code)} for a crate's modules declared in files (`mod x;`);
    inline non-test modules are part of their file's module."""
    roots = [p for p in (src / "lib.rs", src / "main.rs") if p.exists()]
    modules = {}

    def visit(path, file, dir_for_children):
        code = drop_test_modules(strip(file.read_text()))
        modules[path] = (file, code)
        for m in MOD_DECL.finditer(code):
            if m.group(5) != ";":
                continue
            name = m.group(4)
            for cand in (dir_for_children / (name + ".rs"), dir_for_children / name / "mod.rs"):
                if cand.exists():
                    child_dir = cand.parent if cand.name == "mod.rs" else dir_for_children / name
                    visit(path + (name,), cand, child_dir)
                    break

    for r in roots[:1]:
        visit((), r, src)
    return modules


def expand_use(tree):
    """Paths of a use tree (`a::{b, c::{d, e}}` -> a::b, a::c::d, a::c::e), `as` dropped."""
    tree = re.sub(r"\s+", "", tree)
    tree = re.sub(r"as\w+(?=[,}]|$)", "", re.sub(r"\bas\b", "as", tree))
    return [p for p in _expand(tree) if p]


def _expand(tree):
    brace = tree.find("{")
    if brace < 0:
        return [tree]
    prefix = tree[:brace]
    inner = tree[brace + 1:tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    out = []
    for p in parts:
        if p in ("", "self"):
            if p == "self":
                out.append(prefix.rstrip(":"))
            continue
        out.extend(prefix + q for q in _expand(p))
    return out


USE = re.compile(r"\buse\s+([^;]*);")
PATH = re.compile(r"\b(crate|super|self)((?:\s*::\s*\w+)+)")


def resolve(module, segments, modules):
    """The module a path from `module` names and the segments after it, or None outside the
    crate."""
    if not segments:
        return None
    head, rest = segments[0], segments[1:]
    if head == "crate":
        base = ()
    elif head in ("super", "self"):
        base = module
        while segments and segments[0] in ("super", "self"):
            if segments[0] == "super":
                base = base[:-1]
            segments = segments[1:]
        rest = segments
    elif module + (head,) in modules:
        base = module + (head,)
    else:
        return None
    target = base
    while rest and target + (rest[0],) in modules:
        target, rest = target + (rest[0],), rest[1:]
    return target, rest


def module_edges(modules):
    """{module: set of modules it names}, re-exports followed to the defining module."""
    uses = {}
    reexports = {}
    for path, (_file, code) in modules.items():
        found = []
        for m in USE.finditer(code):
            is_pub = code[max(0, m.start() - 12):m.start()].rstrip().endswith(("pub", ")"))
            for p in expand_use(m.group(1)):
                segs = [s for s in p.split("::") if s]
                found.append(segs)
                if is_pub and segs and segs[-1] != "*":
                    reexports.setdefault(path, {})[segs[-1]] = segs
        rest = USE.sub(lambda m: blank(m.group(0)), code)
        for m in PATH.finditer(rest):
            found.append([m.group(1)] + [s for s in re.split(r"\s*::\s*", m.group(2)) if s])
        children = {p[-1] for p in modules if len(p) == len(path) + 1 and p[:-1] == path}
        for name in children:
            if re.search(r"(?<![\w:])" + name + r"\s*::", rest):
                found.append([name])
        uses[path] = found

    def target_of(module, segs, seen=0):
        found = resolve(module, segs, modules)
        if found is None:
            return None
        t, rest = found
        # The name after the module: one it re-exports from another module?
        if rest and seen < 8 and rest[0] in reexports.get(t, {}):
            inner = target_of(t, reexports[t][rest[0]], seen + 1)
            if inner is not None:
                return inner
        return t

    edges = {}
    for path, found in uses.items():
        targets = set()
        for segs in found:
            t = target_of(path, segs)
            # A module and its own submodules (`foo.rs` + `foo/`) are one unit split into files:
            # edges between them make no circle.
            if t is not None and t[:len(path)] != path and path[:len(t)] != t:
                targets.add(t)
        edges[path] = targets
    return edges


def strongly_connected(nodes, edges):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            connect(v)
    return out


def circles(root):
    for name, src in crates(root):
        modules = module_tree(src)
        edges = module_edges(modules)
        for comp in strongly_connected(sorted(modules), edges):
            if len(comp) > 1:
                names = sorted("::".join(p) or "(root)" for p in comp)
                print(f"{name}\t{', '.join(names)}")


# ---------------------------------------------------------------- long functions

FN = re.compile(r"\bfn\s+(\w+)")


TEST_MOD_FILE = re.compile(r"#\[\s*cfg\s*\(\s*test\s*\)\s*\]\s*(pub(\([^)]*\))?\s+)?mod\s+(\w+)\s*;")


def test_module_files(src):
    """Files of modules declared `#[cfg(test)] mod x;` (and everything below them)."""
    tests = set()
    for file in rust_files(src):
        children = file.parent if file.name in ("lib.rs", "main.rs", "mod.rs") else file.with_suffix("")
        for m in TEST_MOD_FILE.finditer(strip(file.read_text())):
            for candidate in (children / f"{m.group(3)}.rs", children / m.group(3) / "mod.rs"):
                if candidate.exists():
                    tests.add(candidate)
            if (children / m.group(3)).is_dir():
                tests.update(rust_files(children / m.group(3)))
    return tests


def functions(root):
    for name, src in crates(root):
        tests = test_module_files(src)
        for file in rust_files(src):
            if file in tests:
                continue
            raw = file.read_text()
            code = drop_test_modules(strip(raw))
            raw_lines = raw.split("\n")
            for m in FN.finditer(code):
                # The body: the first `{` after the signature, unless a `;` ends it first.
                j, depth = m.end(), 0
                while j < len(code):
                    ch = code[j]
                    if ch in "(<[":
                        depth += 1
                    elif ch in ")>]":
                        depth -= 1
                    elif ch == ";" and depth <= 0:
                        j = -1
                        break
                    elif ch == "{" and depth <= 0:
                        break
                    j += 1
                if j < 0 or j >= len(code):
                    continue
                start = code.count("\n", 0, m.start()) + 1
                end = code.count("\n", 0, matching_brace(code, j)) + 1
                lines = end - start + 1
                if lines <= LONG:
                    continue
                before = raw_lines[max(0, start - 8):start - 1]
                kept = any(re.search(r"//\s*Kept whole:", ln) for ln in before)
                rel = file.relative_to(root)
                print(f"{name}\t{lines}\t{rel}:{start} {m.group(1)}\t{'yes' if kept else 'no'}")


# ---------------------------------------------------------------- tests

TEST = re.compile(r"#\[\s*(tokio::)?test\b")


def tests(root):
    for name, directory, subdirs in package_dirs(root):
        count = 0
        for sub in subdirs:
            if (directory / sub).is_dir():
                for file in rust_files(directory / sub):
                    count += len(TEST.findall(strip(file.read_text())))
        print(f"{name}\t{count}")


# ---------------------------------------------------------------- end-to-end tests on the wire

WIRE = re.compile(
    r"\bServedModel\b|\bFakeServer\b|\bserved\b|\bserver\.(push|requests|single_request)|"
    r"\bserved_example\b|\bserve_cassettes\b|\bcassette_server\b"
)
SHORTCUT = re.compile(
    r"scripted:|cassette|\bQueueProvider\b|\bRoutedProvider\b|\bHangingProvider\b|"
    r"Project::example|example_named\(|FIXER_STEP"
)


def wire_kind(body, items):
    """`wire` when the test (or a same-file item it names) drives a strict fake server
    (FakeServer, ServedModel, or the cassette server: served_example, serve_cassettes,
    cassette_server), `shortcut` when it replays a scripted cassette or uses an
    in-process queue provider (scripted:, cassette, QueueProvider, RoutedProvider,
    HangingProvider, the example project whose agents run on cassettes), else None (runs no
    model, as far as the grep can tell)."""
    text = body
    for ident in set(re.findall(r"\b\w+\b", body)):
        if ident in items:
            text += items[ident]
    if WIRE.search(text):
        return "wire"
    if SHORTCUT.search(text):
        return "shortcut"
    return None


ITEM = re.compile(r"\b(?:fn|const|static)\s+(\w+)")


def wire(root):
    files = sorted((root / "tests" / "cli").glob("*.rs")) + sorted(
        (root / "crates" / "session" / "tests").rglob("*.rs")
    )
    for file in files:
        raw = file.read_text()
        # Strings matter here (model: scripted:...), comments do not.
        code = re.sub(r"//[^\n]*", "", raw)
        items = {}
        for m in ITEM.finditer(code):
            start = m.start()
            brace = code.find("{", m.end())
            semi = code.find(";", m.end())
            end = semi if (semi >= 0 and (brace < 0 or semi < brace)) else None
            if end is None and brace >= 0:
                end = matching_brace(code, brace)
            if m.group(0).startswith(("const", "static")) and semi >= 0:
                end = semi
            items[m.group(1)] = code[start:(end or start) + 1]
        for m in re.finditer(r"#\[\s*(tokio::)?test\b[^\]]*\]\s*(async\s+)?fn\s+(\w+)", code):
            brace = code.find("{", m.end())
            body = code[brace:matching_brace(code, brace) + 1]
            own = {k: v for k, v in items.items() if k != m.group(3)}
            kind = wire_kind(body, own)
            if kind:
                print(f"{file.relative_to(root)}\t{m.group(3)}\t{kind}")


def devcycles(_root):
    import json

    metadata = json.load(sys.stdin)
    members = set(metadata["workspace_members"])
    names = {p["id"]: p["name"] for p in metadata["packages"] if p["id"] in members}
    by_name = {name: pid for pid, name in names.items()}
    normal, dev = {}, {}
    for package in metadata["packages"]:
        if package["id"] not in members:
            continue
        for dependency in package["dependencies"]:
            if dependency["name"] not in by_name:
                continue
            edges = dev if dependency.get("kind") == "dev" else normal
            edges.setdefault(package["name"], set()).add(dependency["name"])

    def reaches(start, goal):
        seen, stack = set(), [start]
        while stack:
            name = stack.pop()
            if name == goal:
                return True
            if name not in seen:
                seen.add(name)
                stack.extend(normal.get(name, ()))
        return False

    for name in sorted(dev):
        for dependency in sorted(dev[name]):
            if reaches(dependency, name):
                print(f"{name}\t{dependency}")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("circles", "functions", "tests", "wire", "devcycles"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    globals()[sys.argv[1]](Path(sys.argv[2]))


if __name__ == "__main__":
    main()
