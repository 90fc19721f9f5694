// Types and resources of the active organisation: the routes of their lists (catalogue-lists.tsx)
// and forms (TypeEditor.tsx, ResourceEditor.tsx), and what every organisation screen shows while
// no organisation is active.
import { Link, Route, Routes } from 'react-router';
import { useActiveOrganisation } from '../../api/hooks.js';
import { LoadError, Loading } from '../ui.js';
import { ResourceList, TypeList } from './catalogue-lists.js';
import { ResourceEditor } from './ResourceEditor.js';
import { TypeEditor } from './TypeEditor.js';

export default function Catalogue(props: { screen: 'types' | 'resources' }) {
  const org = useActiveOrganisation();
  if (org.isPending) return <Loading />;
  if (org.isError) return <LoadError error={org.error} />;
  if (!org.active) return <NoActive />;
  return props.screen === 'types' ? (
    <Routes>
      <Route index element={<TypeList org={org.active} />} />
      <Route path="new" element={<TypeEditor org={org.active} />} />
      <Route path=":id" element={<TypeEditor org={org.active} />} />
    </Routes>
  ) : (
    <Routes>
      <Route index element={<ResourceList org={org.active} />} />
      <Route path="new" element={<ResourceEditor org={org.active} />} />
      <Route path=":id" element={<ResourceEditor org={org.active} />} />
    </Routes>
  );
}

export function NoActive() {
  return (
    <main className="page">
      <p className="empty">
        Choose an active organisation first: <Link to="/app">your organisations</Link>.
      </p>
    </main>
  );
}
