#!/usr/bin/env bash
# Installs Debian's pdflatex with booktabs: the test that compiles an exported LaTeX table runs it.
set -euo pipefail
if command -v pdflatex >/dev/null 2>&1 && kpsewhich booktabs.sty >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "pdflatex is missing: run 'sudo apt-get install texlive-latex-base texlive-latex-recommended'." >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  texlive-latex-base texlive-latex-recommended >/dev/null
command -v pdflatex
