// Reservations of the active organisation: the week and the lists (reservation-lists.tsx), a
// new booking for a walk-in or phone customer (reservation-new.tsx), and a reservation's
// detail (reservation-detail.tsx) with cancel and reschedule.
import { Route, Routes } from 'react-router';
import { useActiveOrganisation } from '../../api/hooks.js';
import { NoActive } from '../catalogue/Catalogue.js';
import { LoadError, Loading } from '../ui.js';
import { Detail } from './reservation-detail.js';
import { ReservationsHome } from './reservation-lists.js';
import { NewBooking } from './reservation-new.js';

export default function Reservations() {
  const org = useActiveOrganisation();
  if (org.isPending) return <Loading />;
  if (org.isError) return <LoadError error={org.error} />;
  if (!org.active) return <NoActive />;
  return (
    <Routes>
      <Route index element={<ReservationsHome org={org.active} />} />
      <Route path="new" element={<NewBooking org={org.active} />} />
      <Route path=":id" element={<Detail org={org.active} />} />
    </Routes>
  );
}
