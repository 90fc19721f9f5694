import { defineTool } from '../../mcp/types.js';
import { approval, approvalsGetInput } from './schemas.js';
import type { ApprovalsService } from './service.js';

/** The agent's side of approvals: what became of a call its owner was asked to approve. */
export const approvalTools = [
  defineTool({
    actionKey: 'approvals.get',
    title: 'Read approval',
    description:
      'What became of a call that answered approvalRequired: status pending (your person has not decided), executed (it ran; result is what the tool answered), failed (it was refused when run; result.error), denied or expired (it never ran). Poll it, not the original tool: calling that again asks again.',
    catalogue: {
      description: 'Its own approvals and their results. Always available.',
      risk: 'read',
      scopeKinds: [],
      alwaysAllowed: true,
    },
    input: approvalsGetInput,
    output: approval,
    run: (approvals: ApprovalsService, actor, { approvalId }) => approvals.getForAgent(actor, approvalId),
  }),
];
