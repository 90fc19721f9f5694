import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { CustomerLanguage } from '../i18n/customer-language.js';
import { LanguageSwitcher } from '../i18n/LanguageSwitcher.js';
import { recalledManageToken } from '../lib/manage-links.js';

/**
 * Where the payment provider sends the customer back (`/payment/complete|cancelled?reservation=<id>`):
 * on to the booking's manage page when this tab made the booking, else a word on where to look.
 * No organisation is known here, so its default language plays no part.
 */
export function PaymentReturn() {
  return (
    <CustomerLanguage organisationDefault={null}>
      <PaymentReturnIn />
    </CustomerLanguage>
  );
}

function PaymentReturnIn() {
  const { outcome } = useParams();
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const { t } = useTranslation();
  const id = Number(query.get('reservation'));
  const token = Number.isInteger(id) && id > 0 ? recalledManageToken(id) : null;
  const payment = outcome === 'complete' ? 'complete' : 'cancelled';
  const lang = query.get('lang');
  useEffect(() => {
    if (token)
      navigate(`/manage/${token}${lang ? `?lang=${encodeURIComponent(lang)}` : ''}`, {
        replace: true,
        state: { payment },
      });
  }, [token, navigate, payment, lang]);
  if (token) return <p className="loading">{t('manage.loading')}</p>;
  return (
    <main className="page">
      <LanguageSwitcher />
      <h1>{t(payment === 'complete' ? 'payment.completeTitle' : 'payment.cancelledTitle')}</h1>
      <p>
        {t(payment === 'complete' ? 'payment.completeBody' : 'payment.cancelledBody')} {t('payment.useLink')}
      </p>
    </main>
  );
}
