"""Placeholder text of the DeepSpeed, Megatron-LM and Colossal-AI issue templates.

Reporters often leave a template's hint sentences in place. Shown dimmed, a rater's eye
skips them and lands on what the reporter actually wrote.
"""

import re

# Sentences matched anywhere in a run of text (case-insensitive, any whitespace).
SENTENCES: tuple[str, ...] = (
    # Bug reports (DeepSpeed training/inference/compression/chat, Megatron-LM, Colossal-AI 2021).
    "A clear and concise description of what the bug is.",
    "A clear and concise description of what you expected to happen.",
    "A clear and concise description of what the problem is.",
    "A clear and concise description of what the regression is.",
    "Steps to reproduce the behavior:",
    "Steps to reproduce the behavior. The easier it is to reproduce the faster it will get maintainer attention.",
    "If applicable, add screenshots to help explain your problem.",
    "Add any other context about the problem here.",
    "Please run `ds_report` to give us details about your setup.",
    "Please run ds_report to give us details about your setup.",
    # The same two sentences as left around inline code: `ds_report` / `deepspeed` split the text.
    "to give us details about your setup.",
    "launcher, MPI, or something else?",
    "Are you launching your experiment with the `deepspeed` launcher, MPI, or something else?",
    "Are you launching your experiment with the deepspeed launcher, MPI, or something else?",
    "Are you using a specific docker image that you can share?",
    "Any other relevant info about your setup",
    "Simple inference script to reproduce",
    "What packages are required and their versions",
    "How to run the script",
    "Command/Script to reproduce",
    "Please include which training step you are using and which model you are training.",
    "If applicable, add the stack trace or logs from the time of the error.",
    "If you have a proposal for how to fix the issue state it here or link to a PR.",
    "If applicable, add screenshots to help explain your problem, e.g. logs or stack traces.",
    # Feature requests, questions, proposals.
    "Ex. I'm always frustrated when [...]",
    "A clear and concise description of what you want to happen.",
    "A clear and concise description of any alternative solutions or features you've considered.",
    "Add any other context or screenshots about the feature request here.",
    "Ask a clear and concise question about Megatron-LM.",
    "Describe the proposed implementation here.",
    # Colossal-AI issue forms and pull-request scaffold.
    "If relevant, add a minimal example so that we can reproduce the error by running the code.",
    "I have searched the existing issues",
    "I have checked the latest main branch",
    "Yes, I will share a minimal reproducible script.",
    "No, I prefer not to share.",
    "CUDA/cuDNN/NCCL/Python/PyTorch version",
)

# Short hints that are placeholders only when they are the whole run of text.
WHOLE_TEXT: tuple[str, ...] = (
    "_No response_",
    "No response",
    "Go to '...'",
    "Click on '....'",
    "Scroll down to '....'",
    "See error",
    "Previous performance",
    "New performance",
    "Megatron-LM commit ID",
    "PyTorch version",
    "CUDA version",
    "NCCL version",
    "Python version",
    "Please run",
    "Are you launching your experiment with the",
)

# Bracketed example hints such as "[e.g. Ubuntu 18.04]" or "[e.g., two machines with x8 A100s each]".
EXAMPLE_HINT = r"\[e\.g\.,?[^\]\n]{0,120}\]"


def _loose(sentence: str) -> str:
    """A pattern for the sentence that tolerates any run of whitespace and a missing final period."""
    words = [re.escape(word) for word in sentence.split()]
    pattern = r"\s+".join(words)
    if pattern.endswith(r"\."):
        pattern = pattern[:-2] + r"\.?"
    return pattern


PLACEHOLDER_RE = re.compile(
    "|".join([EXAMPLE_HINT, *(_loose(s) for s in sorted(SENTENCES, key=len, reverse=True))]),
    re.IGNORECASE,
)
WHOLE_TEXT_SET = frozenset(" ".join(s.split()).casefold() for s in WHOLE_TEXT)


def is_whole_placeholder(text: str) -> bool:
    return " ".join(text.split()).casefold() in WHOLE_TEXT_SET


def split_placeholders(text: str) -> list[tuple[str, bool]]:
    """Split text into (piece, is_placeholder) runs, in order; pieces join back to the text."""
    if not text.strip():
        return [(text, False)]
    if is_whole_placeholder(text):
        return [(text, True)]
    pieces: list[tuple[str, bool]] = []
    pos = 0
    for match in PLACEHOLDER_RE.finditer(text):
        if match.start() > pos:
            pieces.append((text[pos : match.start()], False))
        pieces.append((match.group(0), True))
        pos = match.end()
    if pos < len(text):
        pieces.append((text[pos:], False))
    return pieces or [(text, False)]
