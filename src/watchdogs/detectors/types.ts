/**
 * The names the event side reads (stored events, filters, alerts, the dashboard's wire), beside
 * the detector contract: the names and event types derive from the registry (registry.ts), the
 * contract is finding.ts. New code imports those two.
 */

export {
  EVENT_TYPES,
  type EventType,
  WATCHDOG_EVENT_TYPES,
  WATCHDOG_NAMES,
  type WatchdogName,
} from '../registry.ts';
export {
  type Detector,
  type Finding,
  gradeAbove,
  pct,
  SEVERITIES,
  type Severity,
  severityRank,
} from './finding.ts';
