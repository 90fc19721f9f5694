import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { BookPage } from './pages/BookPage.js';
import { ManagePage } from './pages/ManagePage.js';
import { NotFound } from './pages/NotFound.js';
import { PaymentReturn } from './pages/PaymentReturn.js';

const ConsoleApp = lazy(() => import('./console/ConsoleApp.js'));

/** The pages of DECISIONS.md "Pages"; the service answers each path with this app. */
export function App() {
  return (
    <Routes>
      <Route path="/book/:slug" element={<BookPage />} />
      <Route path="/manage/:token" element={<ManagePage />} />
      <Route path="/payment/:outcome" element={<PaymentReturn />} />
      <Route
        path="/app/*"
        element={
          <Suspense fallback={<p className="loading">Loading…</p>}>
            <ConsoleApp />
          </Suspense>
        }
      />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
