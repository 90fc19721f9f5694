// The organisation's schedule (schedulePolicy) on the Profile: its form (schedule-editor.tsx,
// shared with types and resources), the schedule in words for members who may not change it,
// and the schedule a chosen resource actually follows, with its dates of other hours.
import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useResourceSchedule, useResources } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, ResolvedSchedule, Resource, SchedulePolicy } from '../../api/types.js';
import { isAdmin } from '../organisations/roles.js';
import { LoadError, Loading, Select } from '../ui.js';
import { WEEK } from '../week.js';
import type { Resolved } from './schedule-draft.js';
import { ScheduleForm } from './schedule-editor.js';
import { SchedulePreview } from './schedule-preview.js';

export function ScheduleEditor(props: { org: Organisation }) {
  const { org } = props;
  if (!isAdmin(org.role))
    return (
      <>
        <h3>Weekly schedule</h3>
        <ScheduleSummary policy={org.schedulePolicy} zone={org.timezone} />
      </>
    );
  return (
    <ScheduleForm
      level="organisation"
      policy={org.schedulePolicy}
      zone={org.timezone}
      inheritedMode="continuous"
      holds={[queryKeys.organisations()]}
      save={(policy: SchedulePolicy | null) =>
        unwrap(
          authed.PATCH('/api/organisations/{id}', {
            params: { path: { id: org.id } },
            body: { schedulePolicy: policy },
          }),
        )
      }
    />
  );
}

/** The schedule in words, for those who may not change it and for a resource's resolved one. */
export function ScheduleSummary(props: {
  policy: Partial<Omit<ResolvedSchedule, 'dateOverrides'>> | undefined;
  zone: string;
  sources?: ResolvedSchedule['sources'];
}) {
  const { policy, zone, sources } = props;
  const mode = policy?.availabilityMode ?? 'continuous';
  const from = (section: keyof ResolvedSchedule['sources']) =>
    sources ? ` (from ${sourceWords[sources[section]]})` : '';
  return (
    <div className="schedule-summary">
      <p>
        {mode === 'shifts' ? 'Only fixed shifts are offered' : 'Any time within the opening hours is offered'}
        {from('availabilityMode')}. Times in {zone}.
      </p>
      {mode === 'continuous' ? (
        <dl className="summary">
          {WEEK.map(({ dayOfWeek, name }) => {
            const day = policy?.operatingHours?.find((d) => d.dayOfWeek === dayOfWeek);
            return (
              <div className="summary-row" key={dayOfWeek}>
                <dt>{name}</dt>
                <dd>
                  {!policy?.operatingHours?.length
                    ? 'Open all day'
                    : day && day.isActive !== false
                      ? `${day.openTime}–${day.closeTime}`
                      : 'Closed'}
                </dd>
              </div>
            );
          })}
        </dl>
      ) : (
        <dl className="summary">
          {WEEK.map(({ dayOfWeek, name }) => {
            const slots = policy?.shiftSchedule?.find((d) => d.dayOfWeek === dayOfWeek)?.slots ?? [];
            return (
              <div className="summary-row" key={dayOfWeek}>
                <dt>{name}</dt>
                <dd>
                  {slots.length ? slots.map((s) => `${s.startTime}–${s.endTime}`).join(', ') : 'No shifts'}
                </dd>
              </div>
            );
          })}
        </dl>
      )}
      {sources && mode === 'continuous' ? (
        <p className="hint">Opening hours{from('operatingHours')}.</p>
      ) : null}
      {sources && mode === 'shifts' ? <p className="hint">Shifts{from('shiftSchedule')}.</p> : null}
    </div>
  );
}

const sourceWords: Record<ResolvedSchedule['sources']['availabilityMode'], string> = {
  organisation: 'the organisation',
  resourceType: 'its type',
  resource: 'the resource itself',
  default: 'the default',
};

/** The schedule a resource actually follows, each section with where it comes from. */
export function ResourceSchedule(props: { org: Organisation }) {
  const { org } = props;
  const resources = useResources(org.id);
  const [chosen, setChosen] = useState('');
  const list = (resources.data ?? []) as Resource[];
  const id = Number(chosen || list[0]?.id || 0);
  const schedule = useResourceSchedule(id, { enabled: id > 0 });
  return (
    <section aria-labelledby="resource-schedule">
      <h3 id="resource-schedule">A resource's schedule</h3>
      {resources.isPending ? <Loading /> : null}
      {resources.isError ? <LoadError error={resources.error} /> : null}
      {resources.data && list.length === 0 ? <p className="empty">No resources yet.</p> : null}
      {list.length > 0 ? (
        <>
          <Select name="scheduleResource" label="Resource" value={String(id)} onChange={setChosen}>
            {list.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </Select>
          {schedule.isPending ? <Loading /> : null}
          {schedule.isError ? <LoadError error={schedule.error} /> : null}
          {schedule.data ? (
            <>
              <ScheduleSummary policy={schedule.data} zone={org.timezone} sources={schedule.data.sources} />
              <SchedulePreview
                schedule={schedule.data as Resolved}
                zone={org.timezone}
                title="Its coming days"
                id="resource-schedule-days"
                level={4}
              />
            </>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
