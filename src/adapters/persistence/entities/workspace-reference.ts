// The `workspace_id` column of tables owned by a workspace: a foreign key that
// maps to the id itself (mapToPk), removed with the workspace.
export const workspaceReference = () =>
  ({ kind: 'm:1', entity: 'Workspace', mapToPk: true, fieldName: 'workspace_id', deleteRule: 'cascade' }) as never;
