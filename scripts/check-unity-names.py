#!/usr/bin/env python3
"""Fails when two source files of one library define the same name in an anonymous namespace.

CMakeLists.txt compiles each target's sources in unity batches (ADJUTANT_UNITY_BATCH files to one
translation unit), so two files' local helpers with one name are a redefinition as soon as a new
file regroups the batches. This check finds such pairs before the compiler does, whatever the
batches are today. A name counts when it is declared directly in an anonymous namespace
(functions, variables, constants, types, aliases and using-declarations), keyed by the named
namespaces around it; namespace aliases and using-directives do not count.

Usage: scripts/check-unity-names.py [ROOT]. Prints "FILE: NAME also in FILE" for each clash and
exits 1 when there is one. Run by scripts/test.sh (the checks stage).
"""
import glob
import os
import re
import sys

# One entry per library or test binary: the files CMakeLists.txt globs into it.
TARGETS = {
    "adj_base": ["base/*.cc"],
    "adj_rules": ["rules/**/*.cc"],
    "adj_storage": ["storage/**/*.cc"],
    "adj_app": ["server/app/*.cc"],
    "adj_render": ["server/render/*.cc"],
    "adj_web": ["server/web/*.cc"],
    "adj_mail": ["server/mail/*.cc"],
    "adj_http": ["server/http/*.cc"],
    "adj_daemon": ["server/daemon/*.cc"],
    "adjutant": ["server/cli/*.cc", "server/main.cc"],
    "adj_test_support": ["tests/support/*.cc"],
    "adj_rules_tests": ["tests/rules/**/*_test.cc"],
    "adj_storage_tests": ["tests/storage/**/*_test.cc"],
    "adj_server_tests": ["tests/server/**/*_test.cc"],
    "adj_mail_tests": ["tests/mail/**/*_test.cc"],
}

TOKEN = re.compile(
    r'R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)"'  # raw string
    r'|"(?:\\.|[^"\\\n])*"'                     # string
    r"|'(?:\\.|[^'\\\n])*'"                     # character
    r"|//[^\n]*|/\*.*?\*/"                      # comments
    r"|^\s*#[^\n]*(?:\\\n[^\n]*)*"              # preprocessor lines
    r"|[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*"         # (qualified) identifiers
    r"|::|[{}();=<>,\[\]]|\S",
    re.S | re.M)
KEYWORDS = {"const", "constexpr", "static", "inline", "extern", "unsigned", "signed", "struct",
            "class", "enum", "union", "typename", "template", "operator", "final", "override",
            "noexcept", "volatile", "thread_local", "auto", "void", "int", "bool", "char", "long",
            "short", "double", "float", "return", "if", "for", "while", "switch", "explicit",
            "friend", "virtual", "mutable", "decltype", "sizeof", "alignas", "requires"}


def tokens(text):
    for m in TOKEN.finditer(text):
        t = m.group(0)
        if t.startswith(("//", "/*", '"', "'", 'R"')) or t.lstrip().startswith("#"):
            continue
        yield t


def declared_name(stmt):
    """The name a declaration statement (tokens up to ';' or its first '{') introduces, with
    what it refers to for an alias or a using-declaration (redeclaring those is allowed when they
    name the same thing)."""
    if not stmt:
        return None
    if stmt[0] == "namespace" or stmt[:2] == ["using", "namespace"]:
        return None
    if re.match(r"[A-Z_][A-Z0-9_]*$", stmt[0]) and len(stmt) > 1 and stmt[1] == "(":
        return None  # a macro: TEST(...), ADJ_ON_EVERY_BACKEND(...)
    if stmt[0] == "using" and len(stmt) > 1:  # using X = ...; or using ns::name;
        if len(stmt) > 2 and stmt[2] == "=":
            return stmt[1] + "=" + " ".join(stmt[3:])
        return stmt[1].split("::")[-1] + "=" + stmt[1]
    if stmt[0] == "template":  # skip the template parameter list
        depth, i = 0, 1
        while i < len(stmt):
            depth += {"<": 1, ">": -1}.get(stmt[i], 0)
            i += 1
            if depth == 0:
                break
        stmt = stmt[i:]
    if stmt and stmt[0] in ("struct", "class", "enum", "union"):
        rest = [t for t in stmt[1:] if t not in ("class", "struct")]
        return rest[0] if rest and re.match(r"[A-Za-z_]\w*$", rest[0]) else None
    depth = 0
    last = None
    for t in stmt:
        if t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
        elif depth == 0 and t in ("(", "=", "[", "{", ";"):
            break
        elif depth == 0 and re.match(r"[A-Za-z_]\w*$", t) and t not in KEYWORDS:
            last = t
    return last


def local_names(path):
    """(namespace path, name) of every declaration directly in an anonymous namespace."""
    with open(path, encoding="utf-8", errors="replace") as f:
        toks = list(tokens(f.read()))
    out = set()
    stack = []  # one entry per open brace: a namespace name, "" for anonymous, None for others
    stmt = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "namespace" and i + 1 < len(toks) and (toks[i + 1] == "{" or (
                i + 2 < len(toks) and toks[i + 2] == "{")):
            name = "" if toks[i + 1] == "{" else toks[i + 1]
            stack.append(name)
            i += 2 if name == "" else 3
            stmt = []
            continue
        in_anon = bool(stack) and stack[-1] == ""
        if t == "{":
            if in_anon:
                n = declared_name(stmt)
                if n:
                    out.add(("::".join(s or "(anon)" for s in stack), n))
            stack.append(None)
            stmt = []
        elif t == "}":
            if stack:
                stack.pop()
            stmt = []
        elif t == ";":
            if in_anon:
                n = declared_name(stmt)
                if n:
                    out.add(("::".join(s or "(anon)" for s in stack), n))
            stmt = []
        elif stack and stack[-1] is None:
            pass  # inside a body: not a namespace-level declaration
        else:
            stmt.append(t)
        i += 1
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    os.chdir(root)
    clashes = 0
    for target, patterns in TARGETS.items():
        seen = {}
        files = sorted({f for p in patterns for f in glob.glob(p, recursive=True)})
        for f in files:
            for scope, decl in local_names(f):
                name, _, refers = decl.partition("=")
                key = (scope, name)
                if key in seen and seen[key][0] != f and (not refers or refers != seen[key][1]):
                    print(f"check-unity-names: {f}: {name} (in {scope}) also in {seen[key][0]} "
                          f"({target}: one unity batch may hold both)")
                    clashes += 1
                seen.setdefault(key, (f, refers))
    if clashes:
        return 1
    print("check-unity-names: no two files of a target define one local name")
    return 0


if __name__ == "__main__":
    sys.exit(main())
