// A workspace is one client of the service; every resource belongs to one.
export type WorkspaceStatus = 'ACTIVE' | 'INACTIVE';

export interface Workspace {
  id: string;
  name: string;
  status: WorkspaceStatus;
  withdrawalsFrozen: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const WORKSPACE_NAME_MAX = 200;
