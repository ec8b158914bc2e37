// Node.js's MongoDB driver (Debian's node-mongodb) against Switchyard's wire protocol: CRUD, a duplicate key's
// error shape, a cursor read through getMore, transactions. Prints "ok node" when every assertion held.
const assert = require('assert');
const { MongoClient } = require('mongodb');

async function main() {
  const client = new MongoClient(process.argv[2], { useUnifiedTopology: true, serverSelectionTimeoutMS: 30000 });
  await client.connect();
  const db = client.db('nodetests');
  const books = db.collection('books');
  await books.deleteMany({});
  const inserted = await books.insertOne({ title: 'Dune', year: 1965 });
  assert.ok(inserted.insertedId);
  assert.strictEqual((await books.findOne({ _id: inserted.insertedId })).title, 'Dune');
  await books.insertMany(Array.from({ length: 300 }, (_, i) => ({ n: i })));
  const all = await books.find({ n: { $gte: 0 } }).sort({ n: 1 }).batchSize(25).toArray();
  assert.deepStrictEqual(all.map((d) => d.n), Array.from({ length: 300 }, (_, i) => i));
  const updated = await books.updateMany({ n: { $lt: 10 } }, { $set: { small: true } });
  assert.strictEqual(updated.modifiedCount, 10);
  assert.strictEqual(await books.countDocuments({ small: true }), 10);
  const deleted = await books.deleteMany({ small: true });
  assert.strictEqual(deleted.deletedCount, 10);
  const authors = db.collection('authors');
  await authors.deleteMany({});
  await authors.createIndex({ name: 1 }, { unique: true });
  await authors.insertOne({ name: 'Herbert' });
  await assert.rejects(authors.insertOne({ name: 'Herbert' }), (error) => {
    assert.strictEqual(error.code, 11000);
    return true;
  });
  const found = await books.findOneAndUpdate({ title: 'Dune' }, { $inc: { year: 1 } }, { returnOriginal: false });
  assert.strictEqual(found.value.year, 1966);
  const grouped = await books.aggregate([{ $match: { n: { $gte: 290 } } }, { $count: 'c' }]).toArray();
  assert.strictEqual(grouped[0].c, 10);
  const names = (await db.listCollections().toArray()).map((c) => c.name);
  assert.ok(names.includes('books'));
  // A transaction: all or nothing, its writes read inside and unseen outside until the commit.
  const ledger = db.collection('ledger');
  await ledger.deleteMany({});
  const session = client.startSession();
  await session.withTransaction(async () => {
    await ledger.insertOne({ _id: 1, amount: 5 }, { session });
    await ledger.updateOne({ _id: 1 }, { $inc: { amount: 1 } }, { session });
    assert.strictEqual((await ledger.findOne({ _id: 1 }, { session })).amount, 6);
    assert.strictEqual(await ledger.findOne({ _id: 1 }), null);
  });
  assert.strictEqual((await ledger.findOne({ _id: 1 })).amount, 6);
  session.startTransaction();
  await ledger.insertOne({ _id: 2 }, { session });
  await session.abortTransaction();
  assert.strictEqual(await ledger.findOne({ _id: 2 }), null);
  session.endSession();
  await client.close();
  console.log('ok node');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
