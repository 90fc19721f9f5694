// An agent's activity: its MCP tool calls, newest first, in the person's zone, filtered by action
// and outcome (kept in the address, so a filtered view can be shared or reloaded), each with the
// approval it asked for or ran, and its arguments as the API keeps them (contact details redacted).
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { unwrap } from '../../api/client.js';
import { useAgent, useAgentCatalog } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { ActivityItem, CatalogAction } from '../../api/types.js';
import { formatDateTime } from '../../lib/time.js';
import { LoadError, Loading, Select } from '../ui.js';
import { areaOf, personZone, toolNameOf } from './agent-values.js';
import { areaWords } from './permissions.js';

const PAGE = 50;

/** The filters, kept in the address so a filtered view can be shared or reloaded. */
function useActivityFilters() {
  const [params, setParams] = useSearchParams();
  const actionKey = params.get('action') ?? '';
  const outcome = (params.get('outcome') ?? '') as '' | ActivityItem['outcome'];
  const setParam = (name: string, value: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );
  return { actionKey, outcome, setParam };
}

type Filters = ReturnType<typeof useActivityFilters>;

/** The agent's calls matching the filters, a page at a time. */
function useActivity(id: number, actionKey: string, outcome: Filters['outcome']) {
  return useInfiniteQuery({
    queryKey: queryKeys.agentActivity(id, actionKey, outcome),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        authed.GET('/api/agents/{id}/activity', {
          params: {
            path: { id },
            query: {
              limit: PAGE,
              ...(pageParam ? { cursor: pageParam } : {}),
              ...(actionKey ? { actionKey } : {}),
              ...(outcome ? { outcome } : {}),
            },
          },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // The agent acts while the person is away: never show a remembered timeline on opening.
    staleTime: 0,
  });
}

export default function AgentActivity() {
  const id = Number(useParams().id);
  const filters = useActivityFilters();
  const { actionKey, outcome } = filters;
  const agent = useAgent(id);
  const catalog = useAgentCatalog();
  const activity = useActivity(id, actionKey, outcome);
  const zone = personZone();
  const titleOf = (key: string) => catalog.data?.actions.find((a) => a.key === key)?.title ?? key;
  const items = activity.data?.pages.flatMap((p) => p.items) ?? [];
  const name = agent.data?.name ?? `agent ${id}`;
  return (
    <main className="page">
      <p>
        <Link to={`/app/agents/${id}`}>Settings of {name}</Link> · <Link to="/app/agents">All agents</Link>
      </p>
      <h1>Activity of {name}</h1>
      {agent.isError ? <LoadError error={agent.error} /> : null}
      <p className="hint">Newest first. Times in {zone.replaceAll('_', ' ')}.</p>
      <ActivityFilters filters={filters} actions={catalog.data?.actions ?? []} activity={activity} />
      {activity.isPending ? <Loading /> : null}
      {activity.isError ? <LoadError error={activity.error} /> : null}
      {activity.isSuccess && items.length === 0 ? (
        <p className="empty">{actionKey || outcome ? 'No calls match these filters.' : 'No calls yet.'}</p>
      ) : null}
      {items.length ? (
        <ol className="record-list activity">
          {items.map((item) => (
            <ActivityRow key={item.id} item={item} title={titleOf(item.actionKey)} zone={zone} />
          ))}
        </ol>
      ) : null}
      {activity.hasNextPage ? (
        <div className="actions">
          <button
            type="button"
            className="secondary"
            disabled={activity.isFetchingNextPage}
            onClick={() => activity.fetchNextPage()}
          >
            Older calls
          </button>
        </div>
      ) : null}
    </main>
  );
}

function ActivityFilters(props: {
  filters: Filters;
  actions: CatalogAction[];
  activity: ReturnType<typeof useActivity>;
}) {
  const { actions, activity } = props;
  const { actionKey, outcome, setParam } = props.filters;
  const areas = [...new Set(actions.map((a) => areaOf(a.key)))];
  return (
    <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <Select name="action" label="Action" value={actionKey} onChange={(v) => setParam('action', v)}>
        <option value="">Any action</option>
        {areas.map((area) => (
          <optgroup key={area} label={areaWords(area)}>
            {actions
              .filter((a) => areaOf(a.key) === area)
              .map((a) => (
                <option key={a.key} value={a.key}>
                  {a.title}
                </option>
              ))}
          </optgroup>
        ))}
      </Select>
      <Select name="outcome" label="Outcome" value={outcome} onChange={(v) => setParam('outcome', v)}>
        <option value="">Any outcome</option>
        <option value="ok">Done</option>
        <option value="error">Refused or failed</option>
      </Select>
      <div className="field refresh">
        <button
          type="button"
          className="secondary"
          disabled={activity.isFetching}
          onClick={() => activity.refetch()}
        >
          Refresh
        </button>
      </div>
    </form>
  );
}

function ActivityRow({ item, title, zone }: { item: ActivityItem; title: string; zone: string }) {
  return (
    <li data-activity={item.id}>
      <div>
        <strong>{title}</strong> <code className="hint">{toolNameOf(item.actionKey)}</code>{' '}
        <span className={`badge outcome-${item.outcome}`}>
          {item.outcome === 'ok' ? 'done' : `refused: ${item.errorCode ?? 'error'}`}
        </span>
        <span className="hint activity-line">
          <time dateTime={item.createdAt}>{formatDateTime(item.createdAt, zone)}</time> · {item.durationMs} ms
          {item.targetIds.length ? ` · ids ${item.targetIds.join(', ')}` : ''}
        </span>
        {item.arguments && Object.keys(item.arguments).length ? (
          <details>
            <summary>Arguments</summary>
            <pre>{JSON.stringify(item.arguments, null, 2)}</pre>
          </details>
        ) : null}
      </div>
      {item.approvalId !== null ? (
        <Link to={`/app/approvals/${item.approvalId}`}>Approval {item.approvalId}</Link>
      ) : null}
    </li>
  );
}
