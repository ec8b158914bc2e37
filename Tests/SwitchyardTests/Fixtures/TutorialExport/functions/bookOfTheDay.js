exports = async function(request, response) {
  const books = context.services.get("mongodb-atlas").db("product").collection("book");
  const [book] = await books.aggregate([{ $sample: { size: 1 } }]).toArray();
  response.setBody(JSON.stringify({ title: book.title }));
};
