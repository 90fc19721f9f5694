// The organisation's weekly schedule (schedulePolicy): opening hours per weekday for continuous
// booking, or fixed shift slots per weekday. Sent as typed; the API's refusals are named by the
// index of the entry it was sent as (`schedulePolicy.operatingHours.2.closeTime`), so the form
// keeps which weekday each index was and puts each message on that day's input.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { unwrap } from '../api/client.js';
import { fieldErrors } from '../api/errors.js';
import { isAdmin, type ResolvedSchedule, type SchedulePolicy, WEEK } from './account-api.js';
import { Status } from './account-ui.js';
import type { Organisation, Resource } from './records.js';
import { authed } from './session.js';
import { Check, Field, FormError, LoadError, Loading, Select } from './ui.js';

type Mode = 'continuous' | 'shifts';
interface Hours {
  open: boolean;
  openTime: string;
  closeTime: string;
}
interface Slot {
  /** The row's own key (slots move when one before them goes). */
  key: number;
  startTime: string;
  endTime: string;
}
let nextSlotKey = 1;
interface Draft {
  mode: Mode;
  /** false: no opening hours set (open all day, every day). */
  hoursSet: boolean;
  hours: Record<number, Hours>;
  shifts: Record<number, Slot[]>;
}

export function draftOf(policy: SchedulePolicy | undefined): Draft {
  const hours: Record<number, Hours> = {};
  const shifts: Record<number, Slot[]> = {};
  for (const { dayOfWeek } of WEEK) {
    const entry = policy?.operatingHours?.find((d) => d.dayOfWeek === dayOfWeek);
    hours[dayOfWeek] = entry
      ? { open: entry.isActive !== false, openTime: entry.openTime, closeTime: entry.closeTime }
      : // Without hours yet, a working week to start from.
        {
          open: !policy?.operatingHours && dayOfWeek >= 1 && dayOfWeek <= 5,
          openTime: '09:00',
          closeTime: '17:00',
        };
    shifts[dayOfWeek] = (policy?.shiftSchedule?.find((d) => d.dayOfWeek === dayOfWeek)?.slots ?? []).map(
      (s) => ({ key: nextSlotKey++, startTime: s.startTime, endTime: s.endTime }),
    );
  }
  return {
    mode: policy?.availabilityMode ?? 'continuous',
    hoursSet: !!policy?.operatingHours,
    hours,
    shifts,
  };
}

/** The body to send, and which form field each of its paths is. */
export function policyOf(draft: Draft): { policy: SchedulePolicy; fieldOf: Map<string, string> } {
  const fieldOf = new Map<string, string>();
  const policy: SchedulePolicy = { availabilityMode: draft.mode };
  if (draft.hoursSet) {
    const open = WEEK.filter(({ dayOfWeek }) => draft.hours[dayOfWeek]!.open);
    policy.operatingHours = open.map(({ dayOfWeek }, i) => {
      const at = `schedulePolicy.operatingHours.${i}`;
      fieldOf.set(`${at}.openTime`, `hours.${dayOfWeek}.openTime`);
      fieldOf.set(`${at}.closeTime`, `hours.${dayOfWeek}.closeTime`);
      fieldOf.set(`${at}.dayOfWeek`, `hours.${dayOfWeek}.openTime`);
      fieldOf.set(at, `hours.${dayOfWeek}.openTime`);
      const { openTime, closeTime } = draft.hours[dayOfWeek]!;
      return { dayOfWeek, openTime, closeTime, isActive: true };
    });
  }
  const shiftDays = WEEK.filter(({ dayOfWeek }) => draft.shifts[dayOfWeek]!.length > 0);
  if (shiftDays.length > 0 || draft.mode === 'shifts') {
    policy.shiftSchedule = shiftDays.map(({ dayOfWeek }, i) => {
      const slots = draft.shifts[dayOfWeek]!;
      slots.forEach((_, j) => {
        const at = `schedulePolicy.shiftSchedule.${i}.slots.${j}`;
        fieldOf.set(`${at}.startTime`, `shift.${dayOfWeek}.${j}.startTime`);
        fieldOf.set(`${at}.endTime`, `shift.${dayOfWeek}.${j}.endTime`);
        // An overlap is reported on the slot itself.
        fieldOf.set(at, `shift.${dayOfWeek}.${j}.startTime`);
      });
      return { dayOfWeek, slots: slots.map((s) => ({ startTime: s.startTime, endTime: s.endTime })) };
    });
  }
  return { policy, fieldOf };
}

export function ScheduleEditor(props: { org: Organisation }) {
  const { org } = props;
  const admin = isAdmin(org.role);
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(org.schedulePolicy));
  const [sent, setSent] = useState<Map<string, string>>(new Map());
  const save = useMutation({
    mutationFn: (policy: SchedulePolicy) =>
      unwrap(
        authed.PATCH('/api/organisations/{id}', {
          params: { path: { id: org.id } },
          body: { schedulePolicy: policy },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['organisations'] }),
  });
  const refused = fieldErrors(save.error);
  const errors: Record<string, string> = {};
  for (const [path, message] of Object.entries(refused)) {
    const field = sent.get(path);
    if (field && !errors[field]) errors[field] = message;
  }
  const setHours = (day: number, change: Partial<Hours>) =>
    setDraft((d) => ({ ...d, hours: { ...d.hours, [day]: { ...d.hours[day]!, ...change } } }));
  const setSlots = (day: number, slots: Slot[]) =>
    setDraft((d) => ({ ...d, shifts: { ...d.shifts, [day]: slots } }));

  if (!admin)
    return (
      <>
        <h3>Weekly schedule</h3>
        <ScheduleSummary policy={org.schedulePolicy} zone={org.timezone} />
      </>
    );
  return (
    <form
      noValidate
      aria-labelledby="schedule-heading"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        const { policy, fieldOf } = policyOf(draft);
        setSent(fieldOf);
        save.mutate(policy);
      }}
    >
      <h3 id="schedule-heading">Weekly schedule</h3>
      <p className="hint" id="schedule-times">
        Times are HH:mm, 24-hour, in {org.timezone}; 24:00 ends at midnight. Resource types and resources may
        set their own.
      </p>
      <Select
        name="availabilityMode"
        label="How times are offered"
        value={draft.mode}
        error={refused['schedulePolicy.availabilityMode']}
        onChange={(mode) => setDraft((d) => ({ ...d, mode: mode as Mode }))}
      >
        <option value="continuous">Any time within the opening hours</option>
        <option value="shifts">Only the fixed shifts below</option>
      </Select>
      {draft.mode === 'continuous' ? (
        <fieldset>
          <legend>Opening hours</legend>
          <Check
            name="hoursSet"
            label="Set opening hours (otherwise open all day, every day)"
            checked={draft.hoursSet}
            onChange={(hoursSet) => setDraft((d) => ({ ...d, hoursSet }))}
          />
          {draft.hoursSet ? (
            <ul className="schedule-days">
              {WEEK.map(({ dayOfWeek, name }) => {
                const day = draft.hours[dayOfWeek]!;
                return (
                  <li key={dayOfWeek}>
                    <Check
                      name={`hours.${dayOfWeek}.open`}
                      label={`Open on ${name}`}
                      checked={day.open}
                      onChange={(open) => setHours(dayOfWeek, { open })}
                    />
                    {day.open ? (
                      <div className="grid-2">
                        <Field
                          name={`hours.${dayOfWeek}.openTime`}
                          label={`${name} opens`}
                          autoComplete="off"
                          value={day.openTime}
                          error={errors[`hours.${dayOfWeek}.openTime`]}
                          onChange={(openTime) => setHours(dayOfWeek, { openTime })}
                        />
                        <Field
                          name={`hours.${dayOfWeek}.closeTime`}
                          label={`${name} closes`}
                          autoComplete="off"
                          value={day.closeTime}
                          error={errors[`hours.${dayOfWeek}.closeTime`]}
                          onChange={(closeTime) => setHours(dayOfWeek, { closeTime })}
                        />
                      </div>
                    ) : (
                      <p className="hint">Closed</p>
                    )}
                  </li>
                );
              })}
            </ul>
          ) : null}
        </fieldset>
      ) : (
        <fieldset>
          <legend>Shifts</legend>
          <ul className="schedule-days">
            {WEEK.map(({ dayOfWeek, name }) => {
              const slots = draft.shifts[dayOfWeek]!;
              return (
                <li key={dayOfWeek}>
                  <h4>{name}</h4>
                  {slots.length === 0 ? <p className="hint">No shifts</p> : null}
                  {slots.map((slot, j) => (
                    <div className="shift" key={slot.key}>
                      <div className="grid-2">
                        <Field
                          name={`shift.${dayOfWeek}.${j}.startTime`}
                          label={`${name} shift ${j + 1} starts`}
                          autoComplete="off"
                          value={slot.startTime}
                          error={errors[`shift.${dayOfWeek}.${j}.startTime`]}
                          onChange={(startTime) =>
                            setSlots(
                              dayOfWeek,
                              slots.map((s, k) => (k === j ? { ...s, startTime } : s)),
                            )
                          }
                        />
                        <Field
                          name={`shift.${dayOfWeek}.${j}.endTime`}
                          label={`${name} shift ${j + 1} ends`}
                          autoComplete="off"
                          value={slot.endTime}
                          error={errors[`shift.${dayOfWeek}.${j}.endTime`]}
                          onChange={(endTime) =>
                            setSlots(
                              dayOfWeek,
                              slots.map((s, k) => (k === j ? { ...s, endTime } : s)),
                            )
                          }
                        />
                      </div>
                      <button
                        type="button"
                        className="link"
                        onClick={() =>
                          setSlots(
                            dayOfWeek,
                            slots.filter((_, k) => k !== j),
                          )
                        }
                      >
                        Remove {name} shift {j + 1}
                      </button>
                    </div>
                  ))}
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => {
                      const last = slots.at(-1);
                      setSlots(dayOfWeek, [
                        ...slots,
                        {
                          key: nextSlotKey++,
                          startTime: last ? last.endTime : '09:00',
                          endTime: last ? '' : '12:00',
                        },
                      ]);
                    }}
                  >
                    Add a shift on {name}
                  </button>
                </li>
              );
            })}
          </ul>
        </fieldset>
      )}
      {save.isError ? <FormError error={save.error} shown={[...sent.keys()]} /> : null}
      <Status>{save.isSuccess && !save.isPending ? 'Schedule saved.' : ''}</Status>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save schedule
        </button>
      </div>
    </form>
  );
}

/** The schedule in words, for those who may not change it and for a resource's resolved one. */
export function ScheduleSummary(props: {
  policy: Partial<ResolvedSchedule> | undefined;
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
  const resources = useQuery({
    queryKey: ['resources', org.id],
    queryFn: () => unwrap(authed.GET('/api/resources')),
  });
  const [chosen, setChosen] = useState('');
  const list = (resources.data ?? []) as Resource[];
  const id = Number(chosen || list[0]?.id || 0);
  const schedule = useQuery({
    queryKey: ['resource-schedule', id],
    enabled: id > 0,
    queryFn: () => unwrap(authed.GET('/api/resources/{id}/schedule', { params: { path: { id } } })),
  });
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
            <ScheduleSummary policy={schedule.data} zone={org.timezone} sources={schedule.data.sources} />
          ) : null}
        </>
      ) : null}
    </section>
  );
}
