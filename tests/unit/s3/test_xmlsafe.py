"""xmlsafe: S3's XML read without DTDs or entities, and text escaped so
that an XML parser reads it back as it was."""
from __future__ import absolute_import, division, print_function

import xml.etree.ElementTree as ElementTree

import pytest

from ssbench.s3 import xmlsafe
from ssbench.s3.xmlsafe import BadBody, parse


def test_a_tree_of_local_tags_text_and_children():
    root = parse(b"<?xml version='1.0' encoding='UTF-8'?>\n"
                 b'<R xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
                 b'<!-- a note --><A>1</A><B/><A attr=\'x>y\'>2</A>'
                 b'<s3:C><D>d</D></s3:C>\n</R>')
    assert root.tag == 'R'
    assert [node.text for node in root.findall('A')] == [u'1', u'2']
    assert root.find('B').text == u'' and root.find('Z') is None
    assert root.find('C').findtext('D') == u'd'
    assert root.findtext('Z', u'none') == u'none'


def test_text_is_unescaped_as_an_xml_parser_reads_it():
    body = (u'<K>a&amp;b &lt;c&gt; &quot;&apos; &#233;&#x1F600; x\r\ny\rz'
            u'<![CDATA[<&>]]></K>').encode('utf-8')
    assert parse(body).text == ElementTree.fromstring(body).text
    assert parse(body).text.startswith(u'a&b <c> "\' \xe9\U0001f600')


@pytest.mark.parametrize('body', [
    # the "billion laughs": a DTD's entities, never expanded
    b'<!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><r>&b;</r>',
    # an external entity
    b'<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>',
    b'<r>&x;</r>', b'<r>a & b</r>', b'<r>&#0;</r>', b'<r>&#xD800;</r>',
    b'<r>&#1114112;</r>',
    b'', b'text', b'<r>', b'<r></s>', b'<r/><r/>', b'<r/>x', b'<r><</r>',
    b'<r>\xff</r>', b'<r/></r>', b'<![CDATA[x]]><r/>', b'<r/><>',
])
def test_what_is_not_plain_xml_is_a_bad_body(body):
    with pytest.raises(BadBody):
        parse(body)


def test_a_byte_order_mark_may_lead():
    assert parse(b'\xef\xbb\xbf<r>x</r>').text == u'x'


def test_a_dtd_is_named_as_what_is_refused():
    with pytest.raises(BadBody) as caught:
        parse(b'<!DOCTYPE r SYSTEM "http://example.com/r.dtd"><r/>')
    assert 'DTD' in str(caught.value)


def test_elements_nest_only_so_deep():
    deep = b'<a>' * xmlsafe.MAX_DEPTH + b'</a>' * xmlsafe.MAX_DEPTH
    assert parse(deep).tag == 'a'
    with pytest.raises(BadBody):
        parse(b'<a>' + deep + b'</a>')


def test_another_root_than_expected_is_a_bad_body_with_the_s3_error():
    with pytest.raises(BadBody) as caught:
        parse(b'<Error><Code>NoSuchBucket</Code><Message>gone</Message>'
              b'</Error>', 'ListBucketResult')
    assert (caught.value.code, caught.value.message) == \
        (u'NoSuchBucket', u'gone')
    with pytest.raises(BadBody) as caught:
        parse(b'<html/>', 'ListBucketResult')
    assert caught.value.code is None


def test_a_flag_is_true_or_false():
    root = parse(b'<r><T>true</T><F> false </F><X>yes</X></r>')
    assert (root.findflag('T'), root.findflag('F'), root.findflag('N')) \
        == (True, False, False)
    with pytest.raises(BadBody):
        root.findflag('X')


@pytest.mark.parametrize('text', [
    u'plain', u'a&b <c> "d\' e>', u'line\r\nend\r', u'caf\xe9 \U0001f600',
    u'\t tab\n'])
def test_escaped_text_reads_back_the_same_with_an_xml_parser(text):
    body = (u'<K>%s</K>' % xmlsafe.escape(text)).encode('utf-8')
    assert ElementTree.fromstring(body).text == text
    assert parse(body).text == text


def test_text_xml_cannot_carry_is_refused():
    with pytest.raises(ValueError):
        xmlsafe.escape(u'bell\x07')


def test_utf8_bytes_are_taken_as_text():
    assert xmlsafe.escape(u'caf\xe9&'.encode('utf-8')) == u'caf\xe9&amp;'
