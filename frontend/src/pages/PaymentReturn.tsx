import { useEffect } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { recalledManageToken } from '../lib/manage-links.js';

/**
 * Where the payment provider sends the customer back (`/payment/complete|cancelled?reservation=<id>`):
 * on to the booking's manage page when this tab made the booking, else a word on where to look.
 */
export function PaymentReturn() {
  const { outcome } = useParams();
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const id = Number(query.get('reservation'));
  const token = Number.isInteger(id) && id > 0 ? recalledManageToken(id) : null;
  const payment = outcome === 'complete' ? 'complete' : 'cancelled';
  useEffect(() => {
    if (token) navigate(`/manage/${token}`, { replace: true, state: { payment } });
  }, [token, navigate, payment]);
  if (token) return <p className="loading">Loading your booking…</p>;
  return (
    <main className="page">
      <h1>{payment === 'complete' ? 'Thank you for your payment' : 'Payment not completed'}</h1>
      <p>
        {payment === 'complete'
          ? 'Your booking is confirmed as soon as the payment provider tells us. '
          : 'Nothing was charged. '}
        Use the manage link you received when you booked to see your booking.
      </p>
    </main>
  );
}
