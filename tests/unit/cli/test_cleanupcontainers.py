"""cleanup-containers --s3: what is wrong is refused in one line before
any request goes out."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.cli.cleanupcontainers import cmd_cleanup_containers
from ssbench.cli.masterparser import build_parser
from ssbench.errors import AuthConfigError, ScenarioError

# Nothing listens there: a request sent would fail otherwise.
ENDPOINT = 'http://127.0.0.1:9'


def _args(*argv):
    args, status = build_parser().parse(['cleanup-containers'] + list(argv))
    assert status is None
    return args


@pytest.fixture
def aws_env(monkeypatch):
    monkeypatch.setenv('AWS_ACCESS_KEY_ID', 'AKID')
    monkeypatch.setenv('AWS_SECRET_ACCESS_KEY', 'secret')
    monkeypatch.delenv('AWS_ENDPOINT_URL', raising=False)


def test_a_base_without_a_bucket_name_is_refused_first(aws_env):
    with pytest.raises(ScenarioError) as info:
        cmd_cleanup_containers(_args('--s3', '--endpoint-url', ENDPOINT,
                                     '-b', '___'))
    assert 'gives no S3 bucket name' in str(info.value)


def test_s3_needs_its_endpoint_and_keys(aws_env, monkeypatch):
    with pytest.raises(AuthConfigError) as info:
        cmd_cleanup_containers(_args('--s3'))
    assert str(info.value) == '--s3 needs --endpoint-url (or ' \
        'AWS_ENDPOINT_URL)'
    monkeypatch.delenv('AWS_SECRET_ACCESS_KEY')
    with pytest.raises(AuthConfigError) as info:
        cmd_cleanup_containers(_args('--s3', '--endpoint-url', ENDPOINT))
    assert 'AWS_SECRET_ACCESS_KEY' in str(info.value)
