exports = async function(authEvent) {
  const readers = context.services.get("mongodb-atlas").db("product").collection("customUserData");
  await readers.insertOne({ userId: authEvent.user.id, favouriteBooks: [] });
};
