/** The pub/sub topic that tells live subscribers (the dashboard) a user's account or quota changed. */
export const accountTopic = (userId: string) => `account:${userId}`;
