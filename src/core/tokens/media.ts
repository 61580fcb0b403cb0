/**
 * Fixed token estimates for images and PDFs. These are in Claude tokens
 * already (from Anthropic's documented formulas), so calibration never scales them.
 */
import type Anthropic from '@anthropic-ai/sdk';

/** Documented: an image costs about (width × height) / 750 tokens. */
export const IMAGE_PIXELS_PER_TOKEN = 750;
/** Documented: images whose long edge exceeds 1,568 px are scaled down first. */
export const IMAGE_MAX_LONG_EDGE = 1568;
/** Documented: an image costs at most ~1,600 tokens after resizing (≈ 1.19 MP). */
export const IMAGE_MAX_TOKENS = 1600;
/** Dimensions unknown (URL/file source, unreadable header): assume the maximum so budgets never underestimate. */
export const IMAGE_DEFAULT_TOKENS = IMAGE_MAX_TOKENS;
/** Documented range for a PDF page is ~1,500–3,000 tokens (text + page image); take the middle. */
export const PDF_TOKENS_PER_PAGE = 2250;
/** PDF page count unknown (URL/file source): assume a short document. */
export const PDF_DEFAULT_PAGES = 3;
/** Base64 chars decoded to sniff image headers; JPEG SOF markers sit after EXIF, usually within 64 KB. */
const HEADER_SNIFF_BASE64_CHARS = 96 * 1024;

export interface Dimensions {
  width: number;
  height: number;
}

/** Tokens of an image of known size, after the API's downscaling. */
export function imageTokensForSize(d: Dimensions): number {
  if (!(d.width > 0 && d.height > 0)) return IMAGE_DEFAULT_TOKENS;
  const scale = Math.min(1, IMAGE_MAX_LONG_EDGE / Math.max(d.width, d.height));
  const tokens = Math.ceil((d.width * scale * d.height * scale) / IMAGE_PIXELS_PER_TOKEN);
  return Math.min(IMAGE_MAX_TOKENS, Math.max(1, tokens));
}

/** Width and height from a PNG, GIF, JPEG or WebP header; undefined if not recognized. */
export function sniffDimensions(bytes: Uint8Array): Dimensions | undefined {
  const u16be = (i: number): number => (bytes[i] << 8) | bytes[i + 1];
  const u16le = (i: number): number => bytes[i] | (bytes[i + 1] << 8);
  const u32be = (i: number): number =>
    ((bytes[i] << 24) >>> 0) + (bytes[i + 1] << 16) + (bytes[i + 2] << 8) + bytes[i + 3];
  const ascii = (i: number, n: number): string => String.fromCharCode(...bytes.subarray(i, i + n));
  if (bytes.length >= 24 && bytes[0] === 0x89 && ascii(1, 3) === 'PNG') return { width: u32be(16), height: u32be(20) };
  if (bytes.length >= 10 && ascii(0, 3) === 'GIF') return { width: u16le(6), height: u16le(8) };
  if (bytes.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
    const chunk = ascii(12, 4);
    if (chunk === 'VP8 ') return { width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
    if (chunk === 'VP8L') {
      const b = bytes.subarray(21, 25);
      return {
        width: 1 + (((b[1] & 0x3f) << 8) | b[0]),
        height: 1 + (((b[3] & 0xf) << 10) | (b[2] << 2) | ((b[1] & 0xc0) >> 6)),
      };
    }
    if (chunk === 'VP8X')
      return {
        width: 1 + (bytes[24] | (bytes[25] << 8) | (bytes[26] << 16)),
        height: 1 + (bytes[27] | (bytes[28] << 8) | (bytes[29] << 16)),
      };
    return undefined;
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return undefined;
      const marker = bytes[i + 1];
      // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: u16be(i + 7), height: u16be(i + 5) };
      }
      i += 2 + u16be(i + 2);
    }
  }
  return undefined;
}

function decodeHead(base64: string, chars: number): Uint8Array {
  // Keep a multiple of 4 so the prefix is valid base64 on its own.
  const head = base64.length > chars ? base64.slice(0, chars - (chars % 4)) : base64;
  return Buffer.from(head, 'base64');
}

/** Image tokens: (w*h)/750 with the API's downscaling when the header gives the size, else IMAGE_DEFAULT_TOKENS. */
export function imageTokens(block: Anthropic.ImageBlockParam): number {
  const src = block.source;
  if (src.type !== 'base64') return IMAGE_DEFAULT_TOKENS;
  const dims = sniffDimensions(decodeHead(src.data, HEADER_SNIFF_BASE64_CHARS));
  return dims ? imageTokensForSize(dims) : IMAGE_DEFAULT_TOKENS;
}

/** Pages of a PDF, by counting `/Type /Page` objects (not `/Pages`); at least 1. */
export function pdfPageCount(base64: string): number {
  const text = Buffer.from(base64, 'base64').toString('latin1');
  const m = text.match(/\/Type\s*\/Page(?!s)/g);
  return Math.max(1, m ? m.length : 1);
}

/** Fixed tokens of a PDF document source; undefined for text-bearing sources (count their text instead). */
export function pdfTokens(block: Anthropic.DocumentBlockParam): number | undefined {
  const src = block.source;
  if (src.type === 'base64') return pdfPageCount(src.data) * PDF_TOKENS_PER_PAGE;
  if (src.type === 'url' || src.type === 'file') return PDF_DEFAULT_PAGES * PDF_TOKENS_PER_PAGE;
  return undefined;
}
