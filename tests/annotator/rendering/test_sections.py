"""The environment part of an issue body is found in each of the three templates' layouts."""

from annotator.rendering import environment_sections, split_sections


def test_deepspeed_system_info_is_found_and_its_title_shortened():
    body = (
        "**Describe the bug**\nHang.\n\n**ds_report output**\n"
        "Please run `ds_report` to give us details about your setup.\n\n"
        "**System info (please complete the following information):**\n - OS: Ubuntu 22.04\n - GPU: 8x A100\n"
    )
    sections = environment_sections(body)
    # The ds_report section holds only its placeholder, so only System info is worth showing.
    assert [s.title for s in sections] == ["System info"]
    assert "8x A100" in sections[0].body


def test_colossalai_environment_heading_is_found():
    body = "### 🐛 Describe the bug\n\nOOM\n\n### Environment\n\nCUDA 12.1, torch 2.1\n"
    assert [(s.title, s.body) for s in environment_sections(body)] == [("Environment", "CUDA 12.1, torch 2.1")]


def test_an_empty_form_answer_is_not_surfaced():
    assert environment_sections("### 🐛 Describe the bug\n\nboom\n\n### Environment\n\n_No response_\n") == []


def test_headings_inside_code_fences_do_not_split_sections():
    body = "### Environment\n```\n### not a heading\n**nor this**\n```\n"
    sections = split_sections(body)
    assert [s.title for s in sections] == ["Environment"]
    assert "### not a heading" in sections[0].body


def test_pasted_ds_report_without_a_heading_is_recognised():
    body = "It crashes.\n\n```\nDeepSpeed C++/CUDA extension op report\n---\ncpu_adam ..... [NO]\n```\n"
    sections = environment_sections(body)
    assert len(sections) == 1 and sections[0].title == "ds_report output"
    assert "cpu_adam" in sections[0].body


def test_no_environment_no_sections():
    assert environment_sections("Just a question about pipeline parallelism.") == []
    assert environment_sections("") == []
