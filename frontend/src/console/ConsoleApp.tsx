// The signed-in console (/app), loaded only when visited so the booking page stays small, and
// split again by screen: each route's module loads when first opened.
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, Navigate, NavLink, Route, Routes } from 'react-router';
import { useBrandColour } from '../components/Branding.js';
import { Register, SignIn } from './Auth.js';
import { refresh, signOut, useSession } from './session.js';
import { Loading } from './ui.js';
import './console.css';

const Organisations = lazy(() => import('./Organisations.js'));
const Catalogue = lazy(() => import('./Catalogue.js'));
const Reservations = lazy(() => import('./Reservations.js'));
const Webhooks = lazy(() => import('./Webhooks.js'));
const Members = lazy(() => import('./Members.js'));

export default function ConsoleApp() {
  const session = useSession();
  const [resuming, setResuming] = useState(session === null);
  useBrandColour(null);
  useEffect(() => {
    if (!resuming) return;
    refresh().finally(() => setResuming(false));
  }, [resuming]);
  if (resuming) return <Loading />;
  return (
    <div className="console">
      <header className="console-bar">
        <Link to="/app" className="console-home">
          Console
        </Link>
        {session ? (
          <span>
            {session.user.name}{' '}
            <button type="button" className="link" onClick={() => signOut()}>
              Sign out
            </button>
          </span>
        ) : null}
      </header>
      {session ? (
        <nav className="console-nav" aria-label="Console">
          <NavLink to="/app" end>
            Organisations
          </NavLink>
          <NavLink to="/app/members">Members</NavLink>
          <NavLink to="/app/types">Types</NavLink>
          <NavLink to="/app/resources">Resources</NavLink>
          <NavLink to="/app/reservations">Reservations</NavLink>
          <NavLink to="/app/webhooks">Webhooks</NavLink>
        </nav>
      ) : null}
      <Suspense fallback={<Loading />}>
        <Routes>
          <Route path="sign-in" element={session ? <Navigate to="/app" replace /> : <SignIn />} />
          <Route path="register" element={session ? <Navigate to="/app" replace /> : <Register />} />
          {session ? (
            <>
              <Route index element={<Organisations />} />
              <Route path="types/*" element={<Catalogue screen="types" />} />
              <Route path="resources/*" element={<Catalogue screen="resources" />} />
              <Route path="reservations/*" element={<Reservations />} />
              <Route path="webhooks/*" element={<Webhooks />} />
              <Route path="members" element={<Members />} />
              <Route path="*" element={<Navigate to="/app" replace />} />
            </>
          ) : (
            <Route path="*" element={<Navigate to="/app/sign-in" replace />} />
          )}
        </Routes>
      </Suspense>
    </div>
  );
}
