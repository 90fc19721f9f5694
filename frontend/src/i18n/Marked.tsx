/**
 * A translated text whose `<strong>…</strong>` parts are shown strong: the catalogues' only
 * markup. Every part is rendered as text, so a value put into the text can never become markup.
 * (react-i18next's Trans does this and more, at several kilobytes of the booking page's budget.)
 */
export function Marked({ text }: { text: string }) {
  const parts = text.split(/<strong>(.*?)<\/strong>/);
  return (
    <>
      {parts.map((part, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text, in order
        i % 2 === 1 ? <strong key={i}>{part}</strong> : part,
      )}
    </>
  );
}
