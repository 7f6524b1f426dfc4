// Every shipped scenario, smallest first (60k to 300k tokens, the two output shapes alternating).
import type { Scenario } from "./scenario.js";
import { backupOperator, buildTool, clinicBooking } from "./scenarios-big.js";
import { etlPipeline, ledgerService } from "./scenarios-data.js";
import { logtailCli, reactDashboard } from "./scenarios-more.js";
import { ordersApi } from "./scenarios-web.js";

export const SCENARIOS: readonly Scenario[] = [ordersApi, etlPipeline, ledgerService, logtailCli, reactDashboard, clinicBooking, backupOperator, buildTool];
