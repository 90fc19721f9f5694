// The organisation's colour on buttons, with a text colour that stays readable on it.

const HEX = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;

/** #rrggbb, or null when the value is not a hex colour. */
export function normaliseHex(value: string | null | undefined): string | null {
  const m = value ? HEX.exec(value.trim()) : null;
  if (!m) return null;
  const hex = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  return `#${hex.toLowerCase()}`;
}

function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(1 + i * 2, 3 + i * 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

/** WCAG contrast ratio of two hex colours. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Black or white, whichever reads better on `background`. */
export function textOn(background: string): '#000000' | '#ffffff' {
  return contrast(background, '#ffffff') >= contrast(background, '#000000') ? '#ffffff' : '#000000';
}

/** The brand's colours for the page, the default teal when the organisation has none. */
export function brandColours(colour: string | null | undefined): { brand: string; onBrand: string } {
  const brand = normaliseHex(colour) ?? '#0f766e';
  return { brand, onBrand: textOn(brand) };
}
