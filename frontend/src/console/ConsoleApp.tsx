// The signed-in console (/app), loaded only when visited so the booking page stays small, and
// split again by screen: each route's module loads when first opened.
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { useOrganisations } from '../api/hooks.js';
import { refresh, type Session, signOut, useSession } from '../api/session.js';
import { useBrandColour } from '../components/Branding.js';
import { Register, SignIn } from './security/Auth.js';
import { VerifyBanner } from './security/VerifyBanner.js';
import { Loading } from './ui.js';
import './console.css';

const Organisations = lazy(() => import('./organisations/Organisations.js'));
const Catalogue = lazy(() => import('./catalogue/Catalogue.js'));
const Reservations = lazy(() => import('./reservations/Reservations.js'));
const Webhooks = lazy(() => import('./webhooks/Webhooks.js'));
const Members = lazy(() => import('./organisations/Members.js'));
const Profile = lazy(() => import('./account/Profile.js'));
const Payments = lazy(() => import('./organisations/Payments.js'));
const Embed = lazy(() => import('./organisations/Embed.js'));
const Agents = lazy(() => import('./agents/Agents.js'));
const Approvals = lazy(() => import('./approvals/Approvals.js'));
const CalendarSync = lazy(() => import('./account/CalendarSync.js'));
const Privacy = lazy(() => import('./privacy/Privacy.js'));
const Security = lazy(() => import('./security/Security.js'));
const Invitations = lazy(() => import('./security/Invitations.js'));
const Troubleshooter = lazy(() => import('./troubleshooter/Troubleshooter.js'));

/** Each screen's name in the tab's title, by the first part of its path under /app. */
const SCREEN_TITLES: Record<string, string> = {
  '': 'Organisations',
  members: 'Members',
  types: 'Types',
  resources: 'Resources',
  troubleshoot: 'Why can’t this be booked?',
  reservations: 'Reservations',
  webhooks: 'Webhooks',
  payments: 'Payments',
  agents: 'Agents',
  approvals: 'Approvals',
  'calendar-sync': 'Calendar sync',
  privacy: 'Privacy',
  profile: 'Profile',
  invitations: 'Invitations',
  security: 'Security',
  'sign-in': 'Sign in',
  register: 'Create an account',
};

/** The tab's title: "Reservations · Salon Ute · Console" (the screen, the active organisation). */
function useConsoleTitle(organisation: string | null) {
  const { pathname } = useLocation();
  const screen = SCREEN_TITLES[pathname.split('/')[2] ?? ''] ?? null;
  const title = [screen, organisation, 'Console'].filter(Boolean).join(' · ');
  useEffect(() => {
    document.title = title;
  }, [title]);
}

/** Where a signed-out visit was going (a mailed link to /app/invitations): back there after sign-in. */
function useReturnPath(): string {
  const state = useLocation().state as { from?: string } | null;
  return state?.from?.startsWith('/app') ? state.from : '/app';
}

/** Whether a visit that starts signed out is still resuming its session from the refresh cookie. */
function useResuming(signedIn: boolean): boolean {
  const [resuming, setResuming] = useState(!signedIn);
  useEffect(() => {
    if (!resuming) return;
    refresh().finally(() => setResuming(false));
  }, [resuming]);
  return resuming;
}

export default function ConsoleApp() {
  const session = useSession();
  const queryClient = useQueryClient();
  const signedIn = session !== null;
  const organisations = useOrganisations({ enabled: signedIn });
  // Before the first organisation exists only its creation and the account's own screens show.
  const member = organisations.data ? organisations.data.length > 0 : null;
  const active = organisations.data?.find((o) => o.isActiveOrganisation)?.name ?? null;
  useConsoleTitle(signedIn ? active : null);
  // Signed out (by the button, or a session ended elsewhere): nothing the last person read stays.
  useEffect(() => {
    if (!signedIn) queryClient.clear();
  }, [signedIn, queryClient]);
  useBrandColour(null);
  const resuming = useResuming(signedIn);
  if (resuming) return <Loading />;
  return (
    <div className="console">
      <ConsoleBar session={session} />
      {session ? <ConsoleNav member={member} /> : null}
      {session ? <VerifyBanner /> : null}
      <Suspense fallback={<Loading />}>
        <ConsoleRoutes signedIn={signedIn} member={member} organisationsPending={organisations.isPending} />
      </Suspense>
    </div>
  );
}

function ConsoleBar(props: { session: Session | null }) {
  const { session } = props;
  return (
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
  );
}

/** `member`: whether the person belongs to an organisation (null while not known). */
function ConsoleNav(props: { member: boolean | null }) {
  return (
    <nav className="console-nav" aria-label="Console">
      <NavLink to="/app" end>
        Organisations
      </NavLink>
      {props.member ? (
        <>
          <NavLink to="/app/members">Members</NavLink>
          <NavLink to="/app/types">Types</NavLink>
          <NavLink to="/app/resources">Resources</NavLink>
          <NavLink to="/app/reservations">Reservations</NavLink>
          <NavLink to="/app/webhooks">Webhooks</NavLink>
          <NavLink to="/app/payments">Payments</NavLink>
          <NavLink to="/app/embed">Embed</NavLink>
          <NavLink to="/app/agents">Agents</NavLink>
          <NavLink to="/app/approvals">Approvals</NavLink>
          <NavLink to="/app/calendar-sync">Calendar sync</NavLink>
          <NavLink to="/app/privacy">Privacy</NavLink>
        </>
      ) : null}
      <NavLink to="/app/profile">Profile</NavLink>
      <NavLink to="/app/invitations">Invitations</NavLink>
      <NavLink to="/app/security">Security</NavLink>
    </nav>
  );
}

function ConsoleRoutes(props: { signedIn: boolean; member: boolean | null; organisationsPending: boolean }) {
  const { signedIn, member, organisationsPending } = props;
  const location = useLocation();
  const returnPath = useReturnPath();
  return (
    <Routes>
      <Route path="sign-in" element={signedIn ? <Navigate to={returnPath} replace /> : <SignIn />} />
      <Route path="register" element={signedIn ? <Navigate to="/app" replace /> : <Register />} />
      {signedIn ? (
        <>
          <Route index element={<Organisations />} />
          <Route path="profile/*" element={<Profile />} />
          <Route path="security/*" element={<Security />} />
          <Route path="invitations" element={<Invitations />} />
          {member ? (
            <>
              <Route path="types/*" element={<Catalogue screen="types" />} />
              <Route path="resources/*" element={<Catalogue screen="resources" />} />
              <Route path="troubleshoot" element={<Troubleshooter />} />
              <Route path="reservations/*" element={<Reservations />} />
              <Route path="webhooks/*" element={<Webhooks />} />
              <Route path="members" element={<Members />} />
              <Route path="payments/*" element={<Payments />} />
              <Route path="embed" element={<Embed />} />
              <Route path="agents/*" element={<Agents />} />
              <Route path="approvals/*" element={<Approvals />} />
              <Route path="calendar-sync/*" element={<CalendarSync />} />
              <Route path="privacy/*" element={<Privacy />} />
            </>
          ) : null}
          <Route
            path="*"
            element={member === null && organisationsPending ? <Loading /> : <Navigate to="/app" replace />}
          />
        </>
      ) : (
        <Route
          path="*"
          element={<Navigate to="/app/sign-in" replace state={{ from: location.pathname }} />}
        />
      )}
    </Routes>
  );
}
