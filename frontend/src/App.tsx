import { lazy, type ReactNode, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { BookPage } from './pages/BookPage.js';
import { ManagePage } from './pages/ManagePage.js';
import { NotFound } from './pages/NotFound.js';
import { PaymentReturn } from './pages/PaymentReturn.js';

const ConsoleApp = lazy(() => import('./console/ConsoleApp.js'));
// Signed-in pages people reach from outside the console: each loads when visited, so the
// booking page's first load carries none of them.
const ApprovalPage = lazy(() => import('./pages/ApprovalPage.js'));
const ConsentPage = lazy(() => import('./pages/ConsentPage.js'));
const CalendarSyncPage = lazy(() => import('./pages/CalendarSyncPage.js'));
const accountLinks = () => import('./console/security/AccountLinks.js');
const VerifyEmailPage = lazy(() => accountLinks().then((m) => ({ default: m.VerifyEmailPage })));
const ForgotPasswordPage = lazy(() => accountLinks().then((m) => ({ default: m.ForgotPasswordPage })));
const ResetPasswordPage = lazy(() => accountLinks().then((m) => ({ default: m.ResetPasswordPage })));

const later = (page: ReactNode) => <Suspense fallback={<p className="loading">Loading…</p>}>{page}</Suspense>;

/** The pages of DECISIONS.md "Pages"; the service answers each path with this app. */
export function App() {
  return (
    <Routes>
      <Route path="/book/:slug" element={<BookPage />} />
      <Route path="/manage/:token" element={<ManagePage />} />
      <Route path="/payment/:outcome" element={<PaymentReturn />} />
      <Route path="/approvals" element={later(<ApprovalPage />)} />
      <Route path="/approvals/:id" element={later(<ApprovalPage />)} />
      <Route path="/oauth/consent" element={later(<ConsentPage />)} />
      <Route path="/calendar-sync" element={later(<CalendarSyncPage />)} />
      <Route path="/verify-email/:token" element={later(<VerifyEmailPage />)} />
      <Route path="/forgot-password" element={later(<ForgotPasswordPage />)} />
      <Route path="/reset-password/:token" element={later(<ResetPasswordPage />)} />
      <Route path="/app/*" element={later(<ConsoleApp />)} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
