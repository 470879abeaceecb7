/**
 * The GraphQL operations the session tools run (through the operation runner, as the caller).
 * Variables carry the tools' argument names (`sessionId`, `ttlHours`).
 */

const QUERY_FIELDS = 'seq queryType parameters resultSummary symbols latencyMs cacheHit at';

export const SESSION_FIELDS =
  'id userId sessionType assets tags state isExpired isArchived createdAt lastAccessedAt expiresAt archivedAt ' +
  'ttlHours timeRemainingHours durationHours totalQueries cacheHitRate queryTypeCounts owner';

export const CHANGE_FIELDS = `session { ${SESSION_FIELDS} } requestedHours grantedHours capped maxTtlHours`;

export const CREATE_SESSION = `mutation CreateAnalysisSession($assets: [String!]!, $sessionType: AnalysisSessionType!, $userId: String, $tags: [String!], $ttlHours: Float) {
  createAnalysisSession(assets: $assets, sessionType: $sessionType, userId: $userId, tags: $tags, ttlHours: $ttlHours) { ${CHANGE_FIELDS} }
}`;

export const SESSION_INFO = `query GetSessionInfo($sessionId: ID!, $recentQueries: Int) {
  analysisSession(id: $sessionId) {
    ${SESSION_FIELDS} context intermediateResults recentQueries(limit: $recentQueries) { ${QUERY_FIELDS} }
  }
}`;

export const LIST_SESSIONS = `query ListSessions($userId: String, $includeArchived: Boolean, $limit: Int, $cursor: String) {
  analysisSessions(userId: $userId, includeArchived: $includeArchived, limit: $limit, cursor: $cursor) {
    totalSessions nextCursor sessions { ${SESSION_FIELDS} }
  }
}`;

export const EXTEND_SESSION = `mutation ExtendSession($sessionId: ID!, $hours: Float) {
  extendAnalysisSession(id: $sessionId, hours: $hours) { ${CHANGE_FIELDS} }
}`;

export const SESSION_ANALYTICS = `query GetSessionAnalytics($userId: String, $sessionType: AnalysisSessionType, $days: Int) {
  sessionAnalytics(userId: $userId, sessionType: $sessionType, days: $days) {
    periodDays since totalSessions activeSessions expiredSessions archivedSessions totalQueries cacheHitRate
    avgDurationSeconds avgQueriesPerSession abandonmentRate
    topAssets { name count } queryTypeDistribution { name count } sessionTypeBreakdown { name count }
    popularTags { name count } daily { day sessionsCreated queries sessionTypes queryTypes }
  }
}`;

export const UPDATE_CONTEXT = `mutation UpdateSessionContext($sessionId: ID!, $set: JSON, $remove: [String!]) {
  updateSessionContext(id: $sessionId, set: $set, remove: $remove) { id context lastAccessedAt }
}`;

export const STORE_RESULT = `mutation StoreSessionResult($sessionId: ID!, $name: String!, $value: JSON!) {
  storeSessionResult(id: $sessionId, name: $name, value: $value) { id resultNames lastAccessedAt }
}`;

export const GET_RESULT = `query GetSessionResult($sessionId: ID!, $name: String!) {
  sessionResult(id: $sessionId, name: $name)
}`;

export const ARCHIVE_SESSION = `mutation ArchiveSession($sessionId: ID!) {
  archiveAnalysisSession(id: $sessionId) { ${SESSION_FIELDS} }
}`;
