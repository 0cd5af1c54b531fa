"""The shared command-line plumbing: one-line usage errors, no exits."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.cli.common import ArgumentParser, UsageExit


def _parser():
    parser = ArgumentParser(prog='tool')
    parser.add_argument('--count', type=int, required=True)
    return parser


def test_parse_returns_args_and_no_status():
    args, status = _parser().parse(['--count', '3'])
    assert args.count == 3 and status is None


def test_parse_prints_one_line_and_returns_2(capsys):
    args, status = _parser().parse(['--count', 'many'])
    assert args is None and status == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1
    assert err.startswith('tool: error: ') and "'many'" in err
    assert err.rstrip().endswith('(see tool -h)')


def test_parse_help_returns_0_after_printing_it(capsys):
    args, status = _parser().parse(['-h'])
    assert args is None and status == 0
    assert 'usage: tool' in capsys.readouterr().out


def test_parse_args_raises_instead_of_exiting():
    with pytest.raises(UsageExit) as info:
        _parser().parse_args([])
    assert info.value.status == 2 and '--count' in info.value.message


def test_help_shows_a_default_once(capsys):
    import argparse
    from ssbench.cli.common import HelpFormatter
    parser = ArgumentParser(prog='tool', formatter_class=HelpFormatter)
    parser.add_argument('-f', help='out (default: standard output)')
    parser.add_argument('-n', type=int, default=3, help='how many')
    parser.parse(['-h'])
    out = capsys.readouterr().out
    assert out.count('(default:') == 2
    assert 'out (default: standard output)' in out
    assert 'how many (default: 3)' in out
    assert issubclass(HelpFormatter, argparse.ArgumentDefaultsHelpFormatter)
