"""The package imports without torch and the CLI answers."""

import pytest
import subprocess
import sys


@pytest.mark.slow
def test_import_does_not_pull_torch():
    code = "import sys, d3mkit, d3mkit.cli; d3mkit.cli.build_parser(); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cli_version():
    from d3mkit.cli import main
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0


@pytest.mark.slow
def test_tabular_demo_runs_and_reports_validation(tmp_path, capsys):
    from d3mkit.cli import main
    assert main(["demo", "--out", str(tmp_path / "d"), "--only", "tabular"]) == 0
    out = capsys.readouterr().out
    assert "validate: 0 error(s), 0 warning(s)" in out and "reproduced byte for byte" in out


def test_a_command_imports_only_its_own_module():
    """Start-up: ``d3mkit validate --help`` imports neither pandas nor numpy, nor the
    other commands' modules (tools/bench_startup.py times it)."""
    import subprocess
    import sys
    code = ("import sys\nfrom d3mkit.cli import main\n"
            "try:\n    main(['validate', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('pandas', 'numpy', 'sklearn', 'torch', 'd3mkit.commands.build',"
            " 'd3mkit.validation.run') if m in sys.modules), file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.stderr.strip().splitlines()[-1] == "[]", p.stderr
