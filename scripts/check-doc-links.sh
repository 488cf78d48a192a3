#!/usr/bin/env bash
# Checks every relative link of README.md and docs/**/*.md: the file it names must exist and its
# #anchor, if any, must be a heading of that file (GitHub's heading ids). Links to http(s):,
# mailto: and links inside code are not checked. Prints each broken link as FILE:LINE: TARGET
# (reason) and exits 1 when there is one, 0 otherwise.
# Usage: scripts/check-doc-links.sh [FILE.md ...]   (default: README.md and docs/**/*.md)
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import os, re, sys, glob

files = sys.argv[1:] or ['README.md'] + sorted(glob.glob('docs/**/*.md', recursive=True))

def slug(heading):
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # links: their text
    text = text.replace('`', '').strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)                         # GitHub keeps letters, digits, _ and -
    return text.replace(' ', '-')

anchor_cache = {}
def anchors(path):
    if path not in anchor_cache:
        seen, ids, fence = {}, set(), False
        for line in open(path, encoding='utf-8'):
            if re.match(r'^\s*(```|~~~)', line):
                fence = not fence
                continue
            m = None if fence else re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
            if m:
                base = slug(m.group(1))
                n = seen.get(base, 0)
                ids.add(base if n == 0 else f'{base}-{n}')
                seen[base] = n + 1
        anchor_cache[path] = ids
    return anchor_cache[path]

link_re = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)'
                     r'|<img\s[^>]*src="([^"]+)"')
broken = 0
for md in files:
    fence = False
    for lineno, line in enumerate(open(md, encoding='utf-8'), 1):
        if re.match(r'^\s*(```|~~~)', line):
            fence = not fence
            continue
        if fence:
            continue
        line = re.sub(r'`[^`]*`', '', line)                       # inline code
        for m in link_re.finditer(line):
            target = m.group(1) or m.group(2)
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):          # http:, https:, mailto: ...
                continue
            path, _, anchor = target.partition('#')
            resolved = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            reason = None
            if not os.path.exists(resolved):
                reason = f'no file {resolved}'
            elif anchor:
                if not resolved.endswith('.md'):
                    reason = f'an anchor in {resolved}, which is not Markdown'
                elif anchor not in anchors(resolved):
                    reason = f'no heading #{anchor} in {resolved}'
            if reason:
                print(f'{md}:{lineno}: {target} ({reason})')
                broken += 1
print(f'{len(files)} files checked, {broken} broken links', file=sys.stderr)
sys.exit(1 if broken else 0)
PY
