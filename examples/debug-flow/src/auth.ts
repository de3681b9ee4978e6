// Session handling for the login flow.

export interface Profile {
  name: string;
  email: string;
}

export interface User {
  id: string;
  profile: Profile | null;
}

const sessions = new Map<string, User>();

export function login(id: string, profile: Profile | null): string {
  const token = `session-${id}-${Date.now()}`;
  sessions.set(token, { id, profile });
  return token;
}

export function logout(token: string): void {
  sessions.delete(token);
}

export function currentUser(token: string): User | undefined {
  return sessions.get(token);
}

export function isLoggedIn(token: string): boolean {
  return sessions.has(token);
}

// Users who signed up with a phone number have no profile yet.
export function hasProfile(user: User): boolean {
  return user.profile !== null;
}

// The greeting on the dashboard after login.
export function greeting(token: string): string {
  const user = currentUser(token);
  if (!user) {
    return "Please log in.";
  }
  return `Welcome back, ${user.profile.name}!`;
}
