import {
  type CallToolResult,
  inputRequired,
  inputResponse,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CompiledTool } from './catalogue.js';
import {
  type ApprovalRequestState,
  approvalElicitation,
  argumentsDigest,
  declaresUrlElicitation,
  type ElicitationAnswer,
  requestCapabilities,
} from './elicitation.js';
import type { AgentRequestContext, AgentServerDeps } from './server.js';
import { asksForTask, createdTaskResult } from './tasks.js';
import { callAgentTool } from './tool-call.js';
import { approvalResult } from './tool-results.js';

/** The key of the approval's URL elicitation in a 2026-07-28 input-required result. */
const APPROVAL_INPUT = 'approval';

/** Declining to open the link is not a denial: the answer is only noted, the approval stays pending. */
const noteAnswer = ({ agent, log }: AgentRequestContext, approvalId: number, answer: ElicitationAnswer) =>
  log.info({ agentId: agent.id, approvalId, elicitation: answer }, 'approval elicitation answered');

/** The approval a 2026-07-28 retry's verified state names, when the state is this call's. */
function retriedApproval(context: AgentRequestContext, ctx: ServerContext, name: string, args: unknown) {
  const { agent } = context;
  const state = ctx.mcpReq.requestState<ApprovalRequestState>();
  if (!state || typeof state !== 'object' || state.v !== 1) return undefined;
  if (state.agentId !== agent.id || state.tool !== name || state.args !== argumentsDigest(args))
    return undefined;
  const answer = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT);
  noteAnswer(context, state.approval.id, answer.kind === 'elicit' ? answer.action : 'error');
  return state.approval;
}

/**
 * Answers `tools/call` through `callAgentTool`. A call sent for approval also asks the
 * person by URL-mode elicitation when the request can: a 2026-07-28 request gets an
 * input-required result (its retry answers the approval it created, and creates none);
 * a 2025-era session's client is asked directly.
 */
export function serveToolCalls(
  server: Server,
  deps: AgentServerDeps,
  contextOf: (ctx: ServerContext) => AgentRequestContext,
): void {
  const { approvalState } = deps;
  const project = (result: CallToolResult, tool: CompiledTool | undefined) =>
    server.projectCallToolResult(result, result.isError ? undefined : tool?.outputSchema);

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const context = contextOf(ctx);
    const { agent, elicitation } = context;
    if (elicitation === 'input-required') {
      // The retry of a call that asked: it answers the approval it created, and creates none.
      const retried = retriedApproval(context, ctx, name, args);
      if (retried) return project(approvalResult(retried), deps.catalogue.byName.get(name));
    }
    const { result, tool, approval } = await callAgentTool(deps, context, { name }, args);
    // A 2025-era client that asked for a task follows the approval through it (and is not
    // asked as well); 2026-07-28 has no `params.task` (docs/decisions.md).
    if (approval && deps.tasks && elicitation !== 'input-required' && asksForTask(request.params))
      return createdTaskResult(await deps.tasks.create(agent.id, approval.id));
    // Only a call sent for approval asks anything: every other call answers as it is.
    if (approval && tool && elicitation) {
      const asking = approvalElicitation(agent.name, approval, tool.definition.title);
      if (elicitation !== 'input-required') {
        noteAnswer(context, approval.id, await elicitation(asking, ctx.mcpReq.id, ctx.mcpReq.signal));
      } else if (approvalState && declaresUrlElicitation(requestCapabilities(ctx))) {
        const { id, expiresAt, approveUrl } = approval;
        return inputRequired({
          inputRequests: {
            [APPROVAL_INPUT]: inputRequired.elicitUrl({ url: asking.url, message: asking.message }),
          },
          requestState: await approvalState.mint(
            {
              v: 1,
              agentId: agent.id,
              tool: name,
              args: argumentsDigest(args),
              approval: { id, expiresAt, approveUrl },
            },
            ctx,
          ),
        });
      }
    }
    return project(result, tool);
  });
}
