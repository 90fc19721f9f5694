export function NotFound() {
  return (
    <main className="page">
      <h1>Page not found</h1>
      <p>This address does not lead anywhere. Check the link you were given.</p>
    </main>
  );
}
