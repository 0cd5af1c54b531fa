"""run-scenario's S3 flags: named as the AWS command line names them,
the keys from the environment only, one line for what is missing."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.cli.masterparser import build_parser
from ssbench.cli.s3opts import s3_from_args
from ssbench.errors import AuthConfigError

RUN = ['run-scenario', '-f', 'x.scenario']
ENV = {'AWS_ACCESS_KEY_ID': 'test:tester', 'AWS_SECRET_ACCESS_KEY': 'sekrit',
       'AWS_ENDPOINT_URL': 'http://127.0.0.1:8080/'}


def settings(*flags, **env):
    args, status = build_parser().parse(RUN + list(flags))
    assert status is None
    return s3_from_args(args, env)


def test_without_s3_nothing_is_read():
    assert settings(**ENV) is None
    args, _ = build_parser().parse(RUN)
    assert args.s3 is False and args.s3_addressing == 'path'


def test_the_defaults_and_the_environment():
    found = settings('--s3', **ENV)
    assert (found.endpoint_url, found.region, found.addressing,
            found.signed_payload, found.access_key, found.secret) == (
        'http://127.0.0.1:8080', 'us-east-1', 'path', False, 'test:tester',
        'sekrit')
    assert settings('--s3', AWS_DEFAULT_REGION='eu-1', **ENV).region == \
        'eu-1'
    assert settings('--s3', AWS_REGION='eu-2', AWS_DEFAULT_REGION='eu-1',
                    **ENV).region == 'eu-2'
    found = settings('--s3', '--region', 'ap-3', '--endpoint-url',
                     'https://s3.example.com', '--s3-addressing', 'virtual',
                     '--s3-signed-payload', AWS_REGION='eu-2', **ENV)
    assert (found.endpoint_url, found.region, found.addressing,
            found.signed_payload) == ('https://s3.example.com', 'ap-3',
                                      'virtual', True)
    assert found.header() == {'endpoint_url': 'https://s3.example.com',
                              'region': 'ap-3', 'addressing': 'virtual',
                              'payload': 'signed'}
    assert 'sekrit' not in repr(found)


def test_no_flag_takes_a_key(capsys):
    for flag in ('--aws-secret-access-key', '--secret-key'):
        assert build_parser().parse(RUN + ['--s3', flag, 'x'])[1] == 2
    capsys.readouterr()


@pytest.mark.parametrize('missing,named', [
    ('AWS_ACCESS_KEY_ID', 'AWS_ACCESS_KEY_ID in the environment'),
    ('AWS_SECRET_ACCESS_KEY', 'AWS_SECRET_ACCESS_KEY in the environment'),
    ('AWS_ENDPOINT_URL', '--endpoint-url (or AWS_ENDPOINT_URL)'),
])
def test_what_is_missing_is_named_in_one_line(missing, named):
    env = dict(ENV)
    del env[missing]
    with pytest.raises(AuthConfigError) as caught:
        settings('--s3', **env)
    assert named in str(caught.value)
    assert len(str(caught.value).splitlines()) == 1


@pytest.mark.parametrize('url', ['ftp://h', 'http://', 'h:80',
                                 'http://h/bucket', 'http://h:port',
                                 'http://h/?x=1'])
def test_an_endpoint_that_is_no_endpoint(url):
    with pytest.raises(AuthConfigError) as caught:
        settings('--s3', '--endpoint-url', url, **ENV)
    assert '--endpoint-url' in str(caught.value)
