// Node.js's MongoDB driver (Debian's node-mongodb) with credentials in its connection string. Run as
// `node node_auth.js URI authenticated USER` (commands run as USER) or `node node_auth.js URI refused` (a wrong
// password: the connection fails with AuthenticationFailed). Prints "ok node-SCENARIO" when every assertion held.
const assert = require('assert');
const { MongoClient } = require('mongodb');

async function main() {
  const [uri, scenario, user] = process.argv.slice(2);
  const client = new MongoClient(uri, { useUnifiedTopology: true, serverSelectionTimeoutMS: 30000 });
  if (scenario === 'refused') {
    await assert.rejects(client.connect(), (error) => {
      assert.strictEqual(error.code, 18, String(error));
      return true;
    });
    await client.close();
  } else {
    await client.connect();
    const status = await client.db('admin').command({ connectionStatus: 1 });
    assert.deepStrictEqual(status.authInfo.authenticatedUsers, [{ user, db: 'admin' }]);
    const shelf = client.db('nodeauth').collection('shelf');
    await shelf.deleteMany({});
    await shelf.insertMany(Array.from({ length: 120 }, (_, i) => ({ n: i })));
    const all = await shelf.find({}).sort({ n: 1 }).batchSize(25).toArray();
    assert.strictEqual(all.length, 120);
    await client.close();
  }
  console.log('ok node-' + scenario);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
