exports = async function(token, /* the device's platform */ platform = "ios") {
  const readers = context.services.get("mongodb-atlas").db("product").collection("customUserData");
  return readers.updateOne({ userId: context.user.id }, { $set: { fcmToken: token, platform, tokenUpdated: new Date() } });
};
