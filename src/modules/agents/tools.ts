import { z } from 'zod';
import { defineTool, PROFILE_ACTION } from '../../mcp/types.js';
import { agent } from './schemas.js';
import type { AgentService } from './service.js';

/** The one tool every agent has: who it is and what it may do, to check before writing. */
export const agentTools = [
  defineTool({
    actionKey: PROFILE_ACTION,
    title: 'Agent profile',
    description:
      'This agent: its name, status, permission group and the actions (with scopes) it may call. ' +
      'Call it before writing to check what you are allowed to do.',
    catalogue: {
      description:
        'This agent: its name, status and permissions. Always available; call it to check what you may do before writing.',
      risk: 'read',
      scopeKinds: [],
      alwaysAllowed: true,
    },
    input: z.strictObject({}),
    output: agent,
    run: (agents: AgentService, actor, _input, { agent }) => agents.profile(actor, agent),
  }),
];
