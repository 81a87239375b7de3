/** What a directory (Google Workspace, Entra ID, Okta, JumpCloud) tells the sync. */
export interface DirectoryUser {
  id: string;
  /** Lower-cased: people are matched by e-mail address. */
  email: string;
  active: boolean;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
}

export interface DirectoryGroup {
  id: string;
  name: string;
}

export interface Directory {
  /** Obtain an access token (the provider's credentials are checked here). */
  prepare(): Promise<void>;
  /** One cheap authenticated read, for GET /test_directory_sync. */
  testConnection(): Promise<void>;
  users(): Promise<DirectoryUser[]>;
  groups(): Promise<DirectoryGroup[]>;
  /** E-mail addresses (lower-cased) of the group's user members; `all` helps providers that answer with ids. */
  members(group: DirectoryGroup, all: DirectoryUser[]): Promise<string[]>;
  /**
   * Names of the groups one person (by e-mail) is a member of, for the sync at sign-in; null
   * when the person is not in the directory. `groups` is the directory's group list.
   */
  userGroups(email: string, groups: DirectoryGroup[]): Promise<string[] | null>;
}
