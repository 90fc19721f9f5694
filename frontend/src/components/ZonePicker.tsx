import { useId, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { zoneChoices } from '../lib/time.js';

/** The zone times are shown in: the visitor's by default, switchable, with the organisation's named. */
export function ZonePicker(props: {
  zone: string;
  organisationZone: string;
  onChange: (zone: string) => void;
}) {
  const { zone, organisationZone, onChange } = props;
  const id = useId();
  const { t } = useTranslation();
  const zones = useMemo(() => zoneChoices(zone, organisationZone), [zone, organisationZone]);
  return (
    <div className="zone">
      <label htmlFor={id}>{t('zone.shownIn')}</label>
      <select id={id} value={zone} onChange={(e) => onChange(e.target.value)}>
        {zones.map((z) => (
          <option key={z} value={z}>
            {z.replaceAll('_', ' ')}
          </option>
        ))}
      </select>
      <p className="hint">
        {zone === organisationZone ? (
          t('zone.isOrganisations')
        ) : (
          <>
            {t('zone.organisationIn', { zone: organisationZone.replaceAll('_', ' ') })}{' '}
            <button type="button" className="link" onClick={() => onChange(organisationZone)}>
              {t('zone.showIts')}
            </button>
          </>
        )}
      </p>
    </div>
  );
}
