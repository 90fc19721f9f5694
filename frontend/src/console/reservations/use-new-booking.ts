// The new booking's state (reservation-new.tsx): the type, resource, pool or several resources
// together (use-together.ts), day and free time chosen, and the booking itself.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { idempotencyKey, unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, Reservation, ResourceType } from '../../api/types.js';
import { type BookableTime, bookableTimes, dayKey, instantOf } from '../../lib/time.js';
import { isStaff } from '../organisations/roles.js';
import { addDays } from '../week.js';
import { type CustomerDraft, customerBody } from './reservation-customer.js';
import { useCatalogue } from './reservation-data.js';
import { TOGETHER, togetherCandidates, togetherOrder, useTogetherTimes } from './use-together.js';

export const POOL = 'any';

/** The free times of `day` (in `zone`) for the type on `target` (a resource id, or POOL). */
function useFreeTimes(type: ResourceType | undefined, target: string, day: string, zone: string) {
  const from = instantOf(`${day}T00:00`, zone);
  const to = instantOf(`${addDays(day, 1)}T00:00`, zone);
  return useQuery({
    queryKey: queryKeys.staffAvailability(type?.id, target, day),
    enabled: Boolean(type && target && from && to),
    queryFn: async (): Promise<BookableTime[]> => {
      const range = { query: { from: from!, to: to! } };
      const answer =
        target === POOL
          ? await unwrap(
              authed.GET('/api/resource-types/{id}/availability', {
                params: { path: { id: type!.id }, ...range },
              }),
            )
          : await unwrap(
              authed.GET('/api/resources/{id}/availability', {
                params: { path: { id: Number(target) }, ...range },
              }),
            );
      // A pool's answer may list its resources too: from the pool, the time is the pool's.
      const offer = target === POOL && 'pool' in answer && answer.pool ? { pool: answer.pool } : answer;
      return bookableTimes(offer, type!.minBookingDuration, Date.now()).filter(
        (t) => dayKey(t.start, zone) === day,
      );
    },
  });
}

export type FreeTimes = ReturnType<typeof useFreeTimes>;

/** What is chosen: a type (the first until another is), its resource, the pool or several together, a day, a free time. */
export function useSlotChoice(zone: string) {
  const catalogue = useCatalogue();
  const [form, setForm] = useState({
    typeId: '',
    target: '',
    day: dayKey(Date.now(), zone),
    time: '',
  });
  const [together, setTogether] = useState<number[]>([]);
  const set = (key: keyof typeof form) => (value: string) =>
    setForm((f) => ({
      ...f,
      [key]: value,
      // A new type, resource or day offers other times.
      ...(key === 'typeId' ? { target: '', time: '' } : {}),
      ...(key === 'target' || key === 'day' ? { time: '' } : {}),
    }));
  const choose = (ids: number[]) => {
    setTogether(ids);
    setForm((f) => ({ ...f, time: '' }));
  };
  const types = catalogue.types;
  const type = types.find((t) => String(t.id) === form.typeId) ?? (form.typeId ? undefined : types[0]);
  const resources = catalogue.resources.filter((r) => r.resourceTypeId === type?.id && r.isActive);
  const pooled = type?.bookingMode === 'POOL' || type?.bookingMode === 'BOTH';
  const target = form.target || (pooled ? POOL : resources[0] ? String(resources[0].id) : '');
  const isTogether = target === TOGETHER;
  const order = isTogether ? togetherOrder(together, catalogue.resources, type) : [];
  const single = useFreeTimes(type, isTogether ? '' : target, form.day, zone);
  const joint = useTogetherTimes(type, order, form.day, zone);
  const free = isTogether ? joint : single;
  const chosen = free.data?.find((t) => t.start === form.time) ?? null;
  const candidates = togetherCandidates(catalogue.resources, types, type);
  const group = { ids: together, order, candidates, choose };
  return {
    form,
    set,
    types,
    type,
    resources,
    pooled,
    target,
    free,
    chosen,
    together: isTogether ? group : null,
  };
}

export type SlotChoice = ReturnType<typeof useSlotChoice>;

/** A booking's time, and with `resourceIds` the resources taken together (a collective booking). */
export interface BookOptions {
  at: BookableTime;
  resourceIds?: number[] | undefined;
  overrideRules?: boolean;
}

/** What the booking takes: several resources together, the time's resource, or the type's pool. */
const targetOf = (type: ResourceType, { at, resourceIds }: BookOptions) =>
  resourceIds
    ? { resourceIds }
    : at.resourceId !== null
      ? { resourceId: at.resourceId }
      : { resourceTypeId: type.id };

/** POST /api/reservations of `type` for `customer`; once booked, the reservation's detail opens. */
export function useBook(type: ResourceType | undefined, customer: CustomerDraft) {
  const navigate = useNavigate();
  return useMutation({
    mutationFn: (options: BookOptions) =>
      unwrap(
        authed.POST('/api/reservations', {
          params: { header: { 'idempotency-key': idempotencyKey() } },
          body: {
            ...targetOf(type!, options),
            startTime: options.at.start,
            endTime: options.at.end,
            customer: customerBody(type, customer),
            ...(customer.notes.trim() ? { notes: customer.notes } : {}),
            ...(options.overrideRules ? { overrideRules: true } : {}),
          },
        }),
      ) as Promise<Reservation>,
    onSuccess: (booked) => navigate(`/app/reservations/${booked.id}`, { state: { booked: true } }),
  });
}

/** Whether staff may book past the type's rules: the booking was refused on them. */
export const refusedOnRules = (org: Organisation, error: unknown) =>
  isStaff(org.role) && error instanceof Error && 'code' in error && error.code === 'BOOKING_RULE_VIOLATED';
