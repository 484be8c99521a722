// A workspace is one client of the service; every resource belongs to one.
export type WorkspaceStatus = 'ACTIVE' | 'INACTIVE';

export interface Workspace {
  id: string;
  name: string;
  status: WorkspaceStatus;
  withdrawalsFrozen: boolean;
  /** Where operator notices go (a dead webhook endpoint); set by the operator tool. */
  contactEmail: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const WORKSPACE_NAME_MAX = 200;
