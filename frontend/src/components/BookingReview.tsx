// The booking page's review of a held time (a paid type): the time left, the price, then pay
// at the provider, or let the time go and choose another.
import { useMutation } from '@tanstack/react-query';
import { type RefObject, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, api, unwrap } from '../api/client.js';
import type { BookedReservation, ManagedReservation, PublicType } from '../api/types.js';
import { useCustomerErrors } from '../i18n/customer-errors.js';
import { useLocale } from '../i18n/customer-language.js';
import { isFramed } from '../lib/embed.js';
import { formatPrice } from '../lib/price.js';
import { minutesLeft } from '../lib/time.js';
import { FramedPaymentNotice, useFramedCheckout } from './FramedPayment.js';
import { Summary } from './Reservation.js';

const expired = (error: unknown) => error instanceof ApiError && error.code === 'HOLD_EXPIRED';

/** The minute hand of the page: now, again every 15 seconds. */
function useNow() {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** Confirming the held time (a paid one goes on to the provider's checkout) and letting it go. */
function useReviewActions(
  token: string,
  onConfirmed: (r: ManagedReservation) => void,
  onReleased: () => void,
) {
  const framed = useFramedCheckout();
  const confirm = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/confirm', { params: { path: { token } } })),
    onSuccess: (r) => {
      const checkoutUrl = r.status === 'pending_payment' ? r.payment?.checkoutUrl : null;
      if (!checkoutUrl) onConfirmed(r);
      // In a host site's frame the checkout gets a tab of its own (see FramedPayment.tsx).
      else if (isFramed()) framed.open(checkoutUrl);
      else location.assign(checkoutUrl);
    },
  });
  const release = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/cancel', { params: { path: { token } } })),
    onSuccess: onReleased,
    // A hold that ran out has let its time go already.
    onError: (error) => (expired(error) ? onReleased() : undefined),
  });
  return { confirm, release, checkout: framed.checkout };
}

type ReviewActions = ReturnType<typeof useReviewActions>;

export function BookingReview(props: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  type: PublicType;
  held: BookedReservation;
  zone: string;
  onConfirmed: (r: ManagedReservation) => void;
  onReleased: () => void;
  /** The payment, made in another tab while the page is framed, was received. */
  onPaid: (r: ManagedReservation) => void;
}) {
  const { headingRef, type, held, zone } = props;
  const now = useNow();
  const actions = useReviewActions(held.manageToken ?? '', props.onConfirmed, props.onReleased);
  const { confirm, release } = actions;
  const left = held.expiresAt ? minutesLeft(held.expiresAt, now) : null;
  const over = left === 0 || expired(confirm.error);
  const paid = type.paymentRequired && held.priceAmount != null && held.priceCurrency;
  const { t } = useTranslation();
  const { errorText } = useCustomerErrors();
  return (
    <section aria-labelledby="review-heading">
      <h2 id="review-heading" ref={headingRef} tabIndex={-1}>
        {t(paid ? 'book.reviewPay' : 'book.reviewConfirm')}
      </h2>
      <p className="notice" aria-live="polite">
        {over ? t('book.holdOver') : left ? t('book.holdingFor', { count: left }) : t('book.holdingNow')}
      </p>
      <Summary
        what={type.name}
        start={held.startTime}
        end={held.endTime}
        zone={zone}
        priceAmount={held.priceAmount}
        priceCurrency={held.priceCurrency}
      />
      {confirm.isError ? (
        <div role="alert" className="error">
          <p>{errorText(confirm.error)}</p>
        </div>
      ) : null}
      {release.isError && !expired(release.error) ? (
        <div role="alert" className="error">
          <p>{errorText(release.error)}</p>
        </div>
      ) : null}
      <ReviewButtons actions={actions} held={held} paid={Boolean(paid)} over={over} />
      {actions.checkout ? (
        <FramedPaymentNotice
          checkout={actions.checkout}
          token={held.manageToken ?? ''}
          onPaid={props.onPaid}
        />
      ) : paid ? (
        <p className="hint">{t('common.securePayment')}</p>
      ) : null}
    </section>
  );
}

/** Confirm (or pay), and choose another time. */
function ReviewButtons(props: {
  actions: ReviewActions;
  held: BookedReservation;
  paid: boolean;
  over: boolean;
}) {
  const { held, paid, over } = props;
  const { confirm, release } = props.actions;
  const { t } = useTranslation();
  const locale = useLocale();
  return (
    <div className="actions">
      <button
        type="button"
        className="primary"
        disabled={confirm.isPending || confirm.isSuccess || over}
        onClick={() => confirm.mutate()}
      >
        {paid
          ? t('book.pay', { price: formatPrice(held.priceAmount!, held.priceCurrency!, locale) })
          : t(confirm.isPending ? 'book.confirming' : 'book.confirmBooking')}
      </button>
      <button
        type="button"
        className="secondary"
        disabled={release.isPending}
        onClick={() => release.mutate()}
      >
        {t('book.chooseAnother')}
      </button>
    </div>
  );
}
