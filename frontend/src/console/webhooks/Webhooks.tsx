// Webhook endpoints of the active organisation (OWNER, ADMIN): the list with a new endpoint
// (WebhookList.tsx) and one endpoint with its deliveries (WebhookDetail.tsx).
import { Route, Routes } from 'react-router';
import { useActiveOrganisation } from '../../api/hooks.js';
import { NoActive } from '../catalogue/Catalogue.js';
import { LoadError, Loading } from '../ui.js';
import { WebhookDetail } from './WebhookDetail.js';
import { WebhookList } from './WebhookList.js';

export default function Webhooks() {
  const org = useActiveOrganisation();
  if (org.isPending) return <Loading />;
  if (org.isError) return <LoadError error={org.error} />;
  if (!org.active) return <NoActive />;
  return (
    <Routes>
      <Route index element={<WebhookList org={org.active} />} />
      <Route path=":webhookId" element={<WebhookDetail org={org.active} />} />
    </Routes>
  );
}
