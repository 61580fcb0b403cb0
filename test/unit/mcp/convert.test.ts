/** MCP results → what the model sees, for every content type of the protocol (shapes as servers send them). */
import { describe, expect, it } from 'vitest';
import { resultBlock } from '../../../src/core/agent/tool-batch';
import { convertToolResult, EMPTY_RESULT_TEXT } from '../../../src/core/mcp/convert';
import { REDACTED } from '../../../src/core/mcp/redact';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('convertToolResult', () => {
  it('text stays text; is_error carries over', () => {
    expect(convertToolResult({ content: [{ type: 'text', text: 'hello' }] }, [])).toEqual({
      content: 'hello',
      is_error: false,
    });
    expect(convertToolResult({ content: [{ type: 'text', text: 'bad input' }], isError: true }, [])).toEqual({
      content: 'bad input',
      is_error: true,
    });
  });

  it('images become image blocks of the tool_result, next to the text', () => {
    const r = convertToolResult(
      {
        content: [
          { type: 'text', text: "Here's the image:" },
          { type: 'image', data: PNG, mimeType: 'image/png' },
        ],
      },
      [],
    );
    expect(r.content).toBe("Here's the image:\n[image]");
    expect(resultBlock('toolu_1', r)).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [
        { type: 'text', text: "Here's the image:" },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      ],
    });
  });

  it('an image type the API does not take, and audio, become one-line notes naming what was left out', () => {
    const r = convertToolResult(
      {
        content: [
          { type: 'image', data: 'AAAA', mimeType: 'image/tiff' },
          { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' },
        ],
      },
      [],
    );
    expect(r).toEqual({
      content:
        '[image (image/tiff, 3 bytes) left out: the Messages API takes only JPEG, PNG, GIF and WebP images]\n[audio (audio/wav, 6 bytes) left out: the Messages API does not take audio]',
      is_error: false,
    });
  });

  it('resource links and embedded resources keep their URI', () => {
    const r = convertToolResult(
      {
        content: [
          {
            type: 'resource_link',
            uri: 'demo://resource/dynamic/text/1',
            name: 'Resource 1',
            mimeType: 'text/plain',
            description: 'a text resource',
          },
          { type: 'resource', resource: { uri: 'file:///tmp/notes.md', mimeType: 'text/markdown', text: '# Notes' } },
          { type: 'resource', resource: { uri: 'demo://blob/2', mimeType: 'application/gzip', blob: 'AAAA' } },
        ],
      },
      [],
    );
    expect(r.content).toBe(
      '[resource link] Resource 1: demo://resource/dynamic/text/1 (text/plain) — a text resource\n' +
        '[resource] file:///tmp/notes.md (text/markdown)\n# Notes\n' +
        '[resource] demo://blob/2 (application/gzip) [binary content (3 bytes) left out: binary resources are not sent to the model]',
    );
  });

  it('structuredContent is sent as JSON only when the server sent no text', () => {
    const weather = { temperature: 33, conditions: 'Cloudy', humidity: 82 };
    expect(convertToolResult({ content: [], structuredContent: weather }, []).content).toBe(
      JSON.stringify(weather, null, 2),
    );
    expect(
      convertToolResult({ content: [{ type: 'text', text: JSON.stringify(weather) }], structuredContent: weather }, [])
        .content,
    ).toBe(JSON.stringify(weather));
  });

  it('an empty result still has content (the API refuses empty tool results), and old-protocol toolResult is JSON', () => {
    expect(convertToolResult({ content: [] }, [])).toEqual({ content: EMPTY_RESULT_TEXT, is_error: false });
    expect(convertToolResult({ toolResult: { ok: 1 } }, [])).toEqual({ content: '{"ok":1}', is_error: false });
  });

  it('secrets are redacted from every text', () => {
    const r = convertToolResult(
      {
        content: [
          { type: 'text', text: 'KEY=sk-abcdef' },
          { type: 'resource_link', uri: 'https://x/?t=sk-abcdef', name: 'n' },
        ],
      },
      ['sk-abcdef'],
    );
    expect(r.content).toBe(`KEY=${REDACTED}\n[resource link] n: https://x/?t=${REDACTED}`);
  });
});
