// Placeholder: the screen is being built (issue 27).
export default function CalendarSync() {
  return <h1>CalendarSync</h1>;
}
