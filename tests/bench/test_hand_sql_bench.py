"""bench/hand_sql_bench.py reads each labelling run's server medians from the table both versions print."""

import pytest

from bench.hand_sql_bench import markdown, pins_not_installed, server_medians

TABLE = """\
| request | server median ms | server p95 ms | round trip median ms | SQL queries | Label Studio | faster by |
| --- | ---: | ---: | ---: | ---: | --- | ---: |
| GET next assignment (API) | {next} | 13.4 | 11.4 | 4 | list 100 tasks: 128 (132) | 13.1x |
| PUT save draft (API) | {save} | 8.2 | 7.9 | 7 | create annotation: 60 (72) | 9.7x |
| POST submit (API) | {submit} | 13.9 | 11.6 | 9 | create annotation: 60 (72) | 6.1x |
| GET my queue page (HTML) | 13.9 | 19.0 | 16.0 | 5 | list 100 tasks: 128 (132) | 9.2x |
| GET 100 of my assignments (API) | 17.1 | 20.8 | 19.6 | 4 | list 100 tasks: 128 (132) | 7.5x |
| POST submit, the other rater still labelling (120 of them) | 9.5 | 12.1 | 11.3 | — | — | — |
| POST submit that completes the issue (freeze + adjudication record) (80 of them) | 10.2 | 15.7 | 12.0 | — | — | — |
| floor: GET bare API endpoint (SELECT 1) | 3.0 | 5.4 | 4.8 | 1 | — | — |
| floor: PUT bare API endpoint (one UPDATE, durable commit) | 3.4 | 4.8 | 5.1 | 1 | — | — |

- POST submit (API): server median 99.0 ms, target ≤ 12.0 ms: MISSED
"""


def test_the_server_median_of_each_row_is_read_from_the_table():
    medians = server_medians("warming up\n" + TABLE.format(next=9.8, save=6.2, submit=9.9))
    assert medians == {
        "next": 9.8,
        "save": 6.2,
        "submit": 9.9,
        "open": 9.5,
        "completing": 10.2,
        "queue": 13.9,
        "floor_get": 3.0,
        "floor_put": 3.4,
    }


def test_a_run_without_its_table_stops_the_benchmark():
    with pytest.raises(SystemExit, match="no server median for next, save"):
        server_medians("Traceback (most recent call last): ...")


def test_the_report_sets_each_pair_side_by_side_with_the_targets():
    hand = server_medians(TABLE.format(next=9.8, save=6.0, submit=10.0))
    orm = server_medians(TABLE.format(next=12.0, save=15.0, submit=22.0))

    class Args:
        pairs, workers, cache_url = 1, 3, ""

    report = markdown([("hand-written SQL", hand), ("ORM", orm)], Args, ["django 4.2.0 (5.2 here)"])
    assert "| 1 | hand-written SQL | 9.8 | 6.0 | 10.0 (9.5 / 10.2) | 13.9 | 3.0 / 3.4 |" in report
    assert "| 2 | ORM | 12.0 | 15.0 | 22.0 (9.5 / 10.2) | 13.9 | 3.0 / 3.4 |" in report
    assert "- save: hand-written 6.0 to 6.0 ms, ORM 15.0 to 15.0 ms (ORM / hand-written in each pair 2.5" in report
    assert "target 12 ms: hand-written within it in 1 of 1 runs, ORM in 0" in report
    assert "at another version than the one both ran with: django 4.2.0 (5.2 here)." in report


def test_pins_the_environment_does_not_hold_are_named():
    import django

    requirements = (
        "# comment\n"
        f"django=={django.__version__} \\\n"
        "    --hash=sha256:abc\n"
        "django==0.0.1 \\\n"
        "no-such-package-here==1.0\n"
    )
    assert pins_not_installed(requirements) == [
        f"django 0.0.1 ({django.__version__} here)",
        "no-such-package-here 1.0 (not installed here)",
    ]
