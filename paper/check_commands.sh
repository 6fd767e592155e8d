#!/bin/sh
# check_commands.sh — every command in the paper can be copied from the PDF:
# no long option printed with a typographic dash (the `--` ligature turns
# "--suite" into "–suite") or with one hyphen, no shell quote set curly.
#
#   sh paper/check_commands.sh PDF|TEXT OPTIONS-FILE
#
# The PDF's text (pdftotext) is searched for an en, em or minus dash, or a
# lone hyphen, glued to a word that is one of the long options OPTIONS-FILE
# names (docs/commands.md: every "--name" there), and for any non-ASCII
# dash that starts a word (prose ranges such as min–max are glued on both
# sides), and for a ’ that opens a word (a typewriter ' set curly; prose
# opens its quotes with ‘). Exit 1 naming each line found.
set -eu
in=$1 options=$2
case $in in
*.pdf) text=$(pdftotext -enc UTF-8 "$in" -) ;;
*) text=$(cat "$in") ;;
esac
names=$(grep -o -E -- '--[a-z][a-z0-9-]+' "$options" | sed 's/^--//' | sort -u | tr '\n' '|')
names=${names%|}
[ -n "$names" ] || { echo "check_commands: $options names no --option"; exit 2; }
# a non-ASCII dash starting a word, one hyphen starting an option name, or
# a curly quote opening a word (a typewriter ' set as ’: prose opens with ‘)
bad=$(printf '%s\n' "$text" | grep -n -E "(^|[[:space:](\`‘'\"])(‐|‑|‒|–|—|―|−)[A-Za-z]|(^|[[:space:](\`‘'\"])-($names)([^a-z0-9-]|\$)|(^|[[:space:]])’[^[:space:]]" || true)
if [ -n "$bad" ]; then
    echo "paper: commands that cannot be copied (a long option needs two ASCII hyphens, a quote must be straight):"
    printf '%s\n' "$bad" | sed 's/^/  /'
    exit 1
fi
echo "  CMDS   every long option in the PDF's text has two ASCII hyphens, every quote straight"
