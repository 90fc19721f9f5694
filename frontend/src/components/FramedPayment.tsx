// Paying from the booking page inside a host site's frame (embed.js). The provider's checkout
// opens in a tab of its own: its page and the way back (`/payment/...`, then the manage page) are
// not pages a host site may frame. The framed page watches the booking until the provider's
// webhook confirms it, then goes on (and tells the host `reservation:paid`).
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useManagedReservation } from '../api/public-hooks.js';
import type { ManagedReservation } from '../api/types.js';

/** The checkout opened elsewhere: its address, and whether the browser opened the tab. */
export interface FramedCheckout {
  url: string;
  opened: boolean;
}

/** Opens the checkout in a new tab (a blocked tab leaves a link to open it by hand). */
export function useFramedCheckout() {
  const [checkout, setCheckout] = useState<FramedCheckout | null>(null);
  const open = (url: string) => setCheckout({ url, opened: window.open(url, '_blank') !== null });
  return { checkout, open };
}

/** Where the payment is made, and the watch that moves on once it is received. */
export function FramedPaymentNotice(props: {
  checkout: FramedCheckout;
  token: string;
  onPaid: (reservation: ManagedReservation) => void;
}) {
  const { checkout, token, onPaid } = props;
  const { t } = useTranslation();
  // Asks again every few seconds while the payment is pending.
  const booking = useManagedReservation(token);
  const status = booking.data?.status;
  const told = useRef(false);
  useEffect(() => {
    if (status !== 'confirmed' || !booking.data || told.current) return;
    told.current = true;
    onPaid(booking.data);
  }, [status, booking.data, onPaid]);
  return (
    <p className="notice" aria-live="polite">
      {checkout.opened ? `${t('payment.framedPayInTab')} ` : null}
      {checkout.opened ? null : (
        <>
          <a href={checkout.url} target="_blank" rel="noopener">
            {t('payment.framedOpenPayment')}
          </a>{' '}
          {t('payment.framedNewTab')}{' '}
        </>
      )}
      {t('payment.framedMovesOn')}
    </p>
  );
}
