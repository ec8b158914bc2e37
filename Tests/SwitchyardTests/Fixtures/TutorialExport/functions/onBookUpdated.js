exports = async function(changeEvent) {
  // Tell every reader who keeps this book among their favourites.
  const book = changeEvent.fullDocument;
  const readers = context.services.get("mongodb-atlas").db("product").collection("customUserData");
  const fans = await readers.find({ favouriteBooks: changeEvent.documentKey._id }).toArray();
  for (const fan of fans) {
    await context.functions.execute("sendPush", fan.fcmToken, `${book.title} was updated`);
  }
};
