import test from 'ava';
import { readMigrations } from '../../sql/migrate.ts';

/**
 * The SHA-256 of every migration file as released. Databases record these when they apply a file
 * and refuse to start when a file changed afterwards, so a released file is never edited, not
 * even a comment; a change is a new migration. Add a row here when adding a file.
 */
const RELEASED: Record<string, string> = {
  '0001_identity.sql': 'e6cfa6769a8a7f195e8de319a74a4f8b38c03302208f4fdd683701764f239979',
  '0002_agent_mcp_servers.sql': 'feb6834bc152e184f511ac57702346200cc5ef0a53f66ce9a21990492095ca5f',
  '0100_identity_registration.sql': '2ca40be6736a83c4097b97afa8c61758440a5ef6d85ef69331c2a17bbcfb61b8',
  '0101_outbox_key_id.sql': '88be7a7e51603585a7bc7dc9577361c5cbf5467822a848ade906aba2cc9149b0',
  '0200_agent_tools.sql': '28c35116b5188d955ab90f3ef86c738527d5c1ffcad76f3b2736c6605f5ad374',
  '0300_available_mcps.sql': '72cac197f670aaf3689a42a7db6b45ed7912bc331916dbdab2a2b4f17b221d3b',
  '0301_agent_mcp_servers_catalog_link.sql': '1afb538ab7551319c741ec30822048856bc6e18ac7aba4794825133a982a05e1',
  '0340_mcp_oauth.sql': 'bc580ea3ebab5fb27932b3cd9d6df4c027f214db6ecfba7906eb890124092cda',
  '0350_mcp_server_status.sql': '69c7542dda1d1d268b929445a42e1afefb153237aee37d9112b9df49794dc11d',
  '0400_usage.sql': '81e238e7fbd2fa2c72672b40e83cbdde6b022f8bdc7e63985de6a9a0e38f4c18',
  '0401_usage_rollups_by_grain.sql': '7ddb4adbc5cb23acc8d5601695703ee98a5347260d7201c34ed242647dd383e5',
  '0402_usage_latency_index.sql': 'ea21e3de26d635cdac119e1f62b15774e055505fce9b5d5d0cba2b77ddf4a8b1',
  '0403_identity_delivery_reset_handoffs.sql': '305fc8cb5af1c9383422d944be9a13afab13d89cc55c586f2659fd5c6d7d35e5',
  '0510_mcp_oauth_browser_handoffs.sql': '974463cbbfec2ff5b101b40e0ddc94892094d3ea7d54862bc3c812e2df8ee7eb',
  '0550_available_mcp_logo_images.sql': '33f07df40c56df6dfed7a66d814f5d1856e049815369e9f25622e35b7d2d4bd0',
  '0551_idempotency_keys.sql': '78530a60f79ecc87ed86c8c28c711bfdde3232807ba72eee2ca3fd7a1dafd1ab',
  '0600_chat.sql': 'f7cb2d11bdac95d970197f27657a315a2a0b3eb6883a8e1195d0eebeacdaf989',
  '0700_usage_ingestion.sql': '85cc896d9dcdf9618a5c98538b9e96f64f1746befab9149fb86305fafb5253e1',
  '0840_usage_events_statement_organization_check.sql': 'a8c8e7d1687e333e4cbab20153b3fb7f232c80dcf962158217fcb0359dbca75f',
  '0900_usage_partitions.sql': 'edf83657f357e770aa0c9215a2fe11f63f4f744e7912eef0d5208598850a3799',
  '1010_agent_definition_and_budget_enforcement.sql': '1fe1fddbc21b2d6016148d9725de77c74962e63a10677fd17206ef75e689189d',
  '1011_chat_message_bytes.sql': 'f939de81da39e7d5dd818292cc20680315d21f9f7c50db10814653ccbaadd1d5',
  '1020_chat_turns.sql': 'b3e8e7d5126e9263f419cab99a7e4c2de1cf223c09dbad98464c9097a1163ab1',
  '1030_knowledge_base.sql': 'b3768abbbff6fde532d41305e7ec461eeb91eabc6e975def4094be476093bd85',
  '1040_knowledge_vectors.sql': '5ab3a1ac6a9b1002a3a4af0730cd14ccdf961fe4545ec0195565c4d7bcbeea0a',
  '1100_usage_reservations.sql': 'a1ceb734ecf46692a44228245d6c14b144c5440ed447c355fc3dea4ca265e96d',
  '1101_guardrails_and_titles.sql': '46baae16a72b4477b23361fc93781d30bd2bb2e70da1d2aa50164953a19e84bd',
  '1103_staff_approvals.sql': '64298fd836110c6ef0bf8b456d2a1de7f4b76c125710861c3c0e597f53f72a61',
  '1110_knowledge_text_bytes.sql': 'b36f0d2a03cc7758d029f2bc5fc704138bbd65ea5ef53cf2e80323d89540c650',
  '1102_web_channel.sql': '7b7f7ab60671dbe12755114769fe8bf2692f2a783518c9a95985a5946a131f1d',
  '1120_agents_archived.sql': 'e6f581cb654cf96dd10595dab211960f1baf73d01df97ff4bfb39e7d0f340af3',
  '1130_end_user_turns_index.sql': '361ce6b2d6c7373e44022e6c42b5f3766b504ec9354fcb2898a06586773d2632',
  '1200_organization_id.sql': 'cce5558d83cf553b14daf241093aa605dcaca1a284f028bd2635fef0fb6fdae8',
  '1201_workspace_roles.sql': '097a2220e9f04605009bb22ce8b1dc37941f8a89673ac4c7eb5d5dafe7c6abdc',
  '1210_message_moderation.sql': 'c84b99aac0d7e2eaf49f2c9c0f19fa9bc73a84534d8265b8926a245a4b491239',
  '1211_client_registration_flag.sql': '1f1e3ebdde3e0433c4ca604f5da576525d6b64cfe41fee583d875a626b4b0d31',
  '1220_plan_prices_and_limits.sql': 'a7dee04c81b78f5081f9e797c0b3af8b6741f7085ea6b12493ffc7847c849905',
  '1221_usage_rollup_month.sql': '5c70af50fba880a8426aad7c036784b4b873fb7e1ccb81b1e77e4289004cc7d7',
  '1222_branding.sql': 'e191be59e6ed6bdde1edd219e613e016f79461156583cadd66226eb0a73ac0ba',
  '1250_invitations.sql': '61cf47f03aab789b29214dd6d7708ca7d8416b7984ff3614c83e7be5799cb955',
  '1230_agent_versions_and_evaluations.sql': '7375d07796fc4bfc6efa1d99359d18870b2dace97bcffd4cbfe5de10b435ea62',
  '1251_business_overview.sql': '2e94956a2638717a7b8c48bce7f57e8913f676105e522e9deac70d0f2049b0a3',
  '1260_reserve_usage_one_snapshot.sql': '02143cb7f09da9a95c3453f4974d41cf1d3fdf0d656b99f2d97cbb102bac25bd',
};

test('no released migration file has changed since it was released', async (t) => {
  const files = await readMigrations();
  for (const file of files) {
    const released = RELEASED[file.name];
    if (released !== undefined) t.is(file.checksum, released, `${file.name} was edited after its release`);
  }
});

test('every migration file has its released checksum recorded', async (t) => {
  const names = (await readMigrations()).map((file) => file.name);
  t.deepEqual(
    names.filter((name) => !(name in RELEASED)),
    [],
  );
  t.deepEqual(
    Object.keys(RELEASED).filter((name) => !names.includes(name)),
    [],
    'a recorded migration file is missing',
  );
});
